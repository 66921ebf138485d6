package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import java.util.List;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class LogicalTypesTest {

  /** Every logical type the interop kit derives from Arrow types the way stock Lance names them is accepted. */
  @Test
  void theTypesLanceWritesAreKnown() {
    List<ArrowType> types = List.of(new ArrowType.Null(), new ArrowType.Bool(), new ArrowType.Int(8, true),
        new ArrowType.Int(64, false), new ArrowType.FloatingPoint(FloatingPointPrecision.HALF),
        new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), ArrowType.Utf8.INSTANCE,
        ArrowType.LargeUtf8.INSTANCE, ArrowType.Binary.INSTANCE, ArrowType.LargeBinary.INSTANCE,
        new ArrowType.FixedSizeBinary(16), new ArrowType.Date(DateUnit.DAY), new ArrowType.Date(DateUnit.MILLISECOND),
        new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), new ArrowType.Timestamp(TimeUnit.NANOSECOND, null),
        new ArrowType.Timestamp(TimeUnit.MICROSECOND, "+08:00"), new ArrowType.Time(TimeUnit.SECOND, 32),
        new ArrowType.Time(TimeUnit.NANOSECOND, 64), new ArrowType.Duration(TimeUnit.MILLISECOND),
        new ArrowType.Decimal(10, 2, 128), new ArrowType.Decimal(40, -3, 256), ArrowType.Struct.INSTANCE);
    for (ArrowType type : types) {
      String logical = LanceProtos.logicalType(new Field("f", FieldType.nullable(type), List.of()));
      assertThat(LogicalTypes.problem(logical)).as(logical).isNull();
    }
  }

  @ParameterizedTest
  @ValueSource(strings = {"list", "large_list.struct", "map", "fixed_size_list:float:128",
      "fixed_size_list:lance.bfloat16:8", "fixed_size_list:struct:2", "fixed_size_list:fixed_size_list:int8:2:3",
      "dict:string:int32:false", "json", "blob", "timestamp:ms:-"})
  void nestedAndExtensionTypesAreKnown(String type) {
    assertThat(LogicalTypes.problem(type)).isNull();
  }

  @ParameterizedTest
  @ValueSource(strings = {"int6$", "", "INT64", "timestamp", "timestamp:us", "timestamp:decade:UTC", "decimal:64:1:1",
      "decimal:128:300:1", "fixed_size_list:float", "fixed_size_list:nope:4", "fixed_size_binary:x", "dict:string",
      "time32:us", "date32:ms"})
  void anythingElseIsUnreadable(String type) {
    assertThat(LogicalTypes.problem(type)).isNotNull();
  }
}
