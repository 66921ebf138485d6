package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Field;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** The legacy-alias, type and output-encoding tables of Lance's schema specification, row by row. */
class SemanticTypesTest {

  @ParameterizedTest(name = "{0} -> {1} + {2}")
  @CsvSource(nullValues = "none", value = {
      "string,                   string,       none,                    false",
      "binary,                   binary,       none,                    false",
      "list,                     list,         none,                    false",
      "list.struct,              list,         none,                    true",
      "large_string,             string,       large_utf8,              true",
      "large_binary,             binary,       large_binary,            true",
      "large_list,               list,         large_list,              true",
      "large_list.struct,        list,         large_list,              true",
      "dict:string:int16:false,  string,       dictionary:int16:utf8,   true",
      "dict:large_string:int8:false, string,   dictionary:int8:large_utf8, true",
      "dict:large_binary:uint32:false, binary, dictionary:uint32:large_binary, true",
      "decimal:128:10:2,         decimal:10:2, none,                    true",
      "decimal:256:10:2,         decimal:10:2, decimal256,              true",
      "decimal:256:40:5,         decimal:40:5, none,                    true",
      "decimal:10:2,             decimal:10:2, none,                    false",
      "int32,                    int32,        none,                    false",
      "timestamp:us:UTC,         timestamp:us:UTC, none,                false",
      "fixed_size_list:lance.bfloat16:256, fixed_size_list:lance.bfloat16:256, none, false",
      // Not an alias: dictionaries of other types, ordered dictionaries.
      "dict:int32:int16:false,   dict:int32:int16:false, none,          false",
      "dict:string:int16:true,   dict:string:int16:true, none,          false",
  })
  void legacyAliasesResolveToTheCanonicalTypeAndTheEncodingThatKeepsTheirReadType(
      String logicalType, String canonical, String implied, boolean alias) {
    SemanticTypes.Resolved resolved = SemanticTypes.resolve(logicalType);
    assertThat(resolved.canonical()).isEqualTo(canonical);
    assertThat(resolved.impliedEncoding()).isEqualTo(implied);
    assertThat(resolved.legacyAlias()).isEqualTo(alias);
  }

  @ParameterizedTest(name = "{0} admits {1}: {2}")
  @CsvSource({
      "string,       utf8,                       true",
      "string,       large_utf8,                 true",
      "string,       utf8_view,                  true",
      "string,       dictionary:int16:utf8,      true",
      "string,       dictionary:int16:binary,    false",
      "string,       dictionary:float:utf8,      false",
      "string,       large_binary,               false",
      "binary,       binary_view,                true",
      "binary,       dictionary:uint8:large_binary, true",
      "list,         large_list,                 true",
      "list,         large_utf8,                 false",
      "decimal:10:2, decimal128,                 true",
      "decimal:10:2, decimal256,                 true",
      "decimal:40:2, decimal128,                 false",
      "decimal:40:2, decimal256,                 true",
      "json,         arrow.json,                 true",
      "json,         lance.json,                 true",
      "json,         utf8,                       false",
      "int64,        utf8,                       false",
      "struct,       list,                       false",
  })
  void outputEncodingsFollowTheTypesTable(String canonical, String encoding, boolean valid) {
    assertThat(SemanticTypes.outputEncodingProblem(canonical, encoding) == null).isEqualTo(valid);
  }

  @ParameterizedTest(name = "{0} is a type: {1}")
  @CsvSource({
      "string, true", "decimal:10:2, true", "decimal:76:76, true", "decimal:77:2, false", "decimal:0:0, false",
      "decimal:10:11, false", "decimal:x:2, false", "dict:int32:int16:false, false", "int8, true",
  })
  void onlySemanticTypesMayBeRecorded(String canonical, boolean valid) {
    assertThat(SemanticTypes.typeProblem(canonical) == null).isEqualTo(valid);
  }

  @ParameterizedTest(name = "{0} + {1} reads as {2}")
  @CsvSource(nullValues = "none", value = {
      "string,       none,        utf8",
      "string,       large_utf8,  large_utf8",
      "large_string, none,        large_utf8",
      "large_string, utf8_view,   utf8_view",
      "string,       bogus,       utf8",
      "decimal:40:2, none,        decimal256",
      "int64,        none,        none",
  })
  void aFieldsOwnEntryWinsAndAnUnknownOneFallsBackToTheDefault(String type, String entry, String reads) {
    Field.Builder field = Field.newBuilder().setName("f").setLogicalType(type);
    if (entry != null) {
      field.putMetadata(SemanticTypes.OUTPUT_ENCODING_KEY, ByteString.copyFromUtf8(entry));
    }
    assertThat(SemanticTypes.effectiveEncoding(field.build())).isEqualTo(reads);
  }

  @ParameterizedTest(name = "{0} ~ {1}: {2}")
  @CsvSource({
      "string, large_string, true", "decimal:128:10:2, decimal:256:10:2, true", "decimal:10:2, decimal:12:2, false",
      "int32, int64, false", "list.struct, large_list, true", "float, double, false",
  })
  void compatibilityComparesSemanticTypesOnly(String a, String b, boolean same) {
    assertThat(SemanticTypes.sameSemanticType(a, b)).isEqualTo(same);
  }
}
