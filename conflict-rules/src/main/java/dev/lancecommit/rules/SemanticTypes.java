package dev.lancecommit.rules;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * The semantic-type contract of Lance's schema specification ({@code FLAG_SEMANTIC_TYPES}, seed 001): in a table
 * with the flag, {@code logical_type} names a semantic type (value domain and query semantics), layouts that hold
 * the same values are one type, and the Arrow layout a read returns is the advisory field metadata entry
 * {@code lance-schema:output-encoding}.
 *
 * <p>This class reads {@code logical_type} strings the way such a table does: {@link #resolve} maps every legacy
 * alias ({@code large_string}, {@code dict:string:int16:false}, {@code decimal:256:10:2}, ...) to its canonical
 * semantic type and the output encoding that reproduces the alias's Arrow type, and {@link #outputEncodingProblem}
 * says which output encodings a type admits.
 */
public final class SemanticTypes {
  public static final String OUTPUT_ENCODING_KEY = "lance-schema:output-encoding";
  public static final String EXTENSION_NAME_KEY = "ARROW:extension:name";
  public static final String EXTENSION_METADATA_KEY = "ARROW:extension:metadata";

  /**
   * Transaction property that turns the contract on: on a Project it is the upgrade commit of an existing table
   * (canonical names, same read types), on an Overwrite it creates a table that follows the contract from birth.
   */
  public static final String ENABLE_PROPERTY = "lance-coordinator.semantic-types";
  public static final String ENABLE_VALUE = "enable";

  private static final Set<String> DICTIONARY_KEYS =
      Set.of("int8", "int16", "int32", "int64", "uint8", "uint16", "uint32", "uint64");
  private static final Map<String, String> STRING_LAYOUTS = Map.of(
      "string", "utf8", "large_string", "large_utf8", "binary", "binary", "large_binary", "large_binary");
  private static final int MAX_DECIMAL_PRECISION = 76;
  private static final int MAX_DECIMAL128_PRECISION = 38;

  private SemanticTypes() {}

  /**
   * A {@code logical_type} read as a semantic type.
   *
   * @param canonical the canonical semantic type name, e.g. {@code string}, {@code decimal:10:2}
   * @param impliedEncoding the output encoding a legacy alias implies, or null for the type's default
   * @param legacyAlias whether the string is a legacy alias rather than a canonical name
   */
  public record Resolved(String canonical, String impliedEncoding, boolean legacyAlias) {}

  /** The semantic type a {@code logical_type} string names in a table with the flag. */
  public static Resolved resolve(String logicalType) {
    switch (logicalType) {
      case "large_string":
        return new Resolved("string", "large_utf8", true);
      case "large_binary":
        return new Resolved("binary", "large_binary", true);
      case "large_list", "large_list.struct":
        return new Resolved("list", "large_list", true);
      case "list.struct":
        return new Resolved("list", null, true);
      default:
        break;
    }
    String[] parts = logicalType.split(":", -1);
    if (parts[0].equals("dict") && parts.length == 4 && STRING_LAYOUTS.containsKey(parts[1])
        && DICTIONARY_KEYS.contains(parts[2]) && parts[3].equals("false")) {
      String canonical = parts[1].endsWith("string") ? "string" : "binary";
      return new Resolved(canonical, "dictionary:" + parts[2] + ":" + STRING_LAYOUTS.get(parts[1]), true);
    }
    if (parts[0].equals("decimal") && parts.length == 4 && (parts[1].equals("128") || parts[1].equals("256"))) {
      String canonical = "decimal:" + parts[2] + ":" + parts[3];
      boolean wide = parts[1].equals("256") && precision(parts[2]) <= MAX_DECIMAL128_PRECISION;
      return new Resolved(canonical, wide ? "decimal256" : null, true);
    }
    return new Resolved(logicalType, null, false);
  }

  /** Whether two logical types name the same semantic type (layouts and output encodings are not compared). */
  public static boolean sameSemanticType(String a, String b) {
    return resolve(a).canonical().equals(resolve(b).canonical());
  }

  /**
   * Why a canonical name is not a semantic type a flagged table may record, or null when it is one. Legacy aliases
   * are reported by {@link Resolved#legacyAlias()}, not here.
   */
  public static String typeProblem(String canonical) {
    String[] parts = canonical.split(":", -1);
    if (parts[0].equals("dict")) {
      return "dictionary encoding of " + (parts.length > 1 ? parts[1] : "?") + " is not a semantic type: only"
          + " string and binary values may be dictionary encoded, and then as an output encoding";
    }
    if (parts[0].equals("decimal")) {
      if (parts.length != 3) {
        return "'" + canonical + "' is not a decimal semantic type (decimal:<precision>:<scale>)";
      }
      int precision = precision(parts[1]);
      Integer scale = integer(parts[2]);
      if (precision < 1 || precision > MAX_DECIMAL_PRECISION || scale == null || scale > precision) {
        return "'" + canonical + "' needs a precision from 1 to " + MAX_DECIMAL_PRECISION
            + " and a scale of at most the precision";
      }
    }
    return null;
  }

  /** Why {@code encoding} is not an output encoding of {@code canonical}, or null when it is one. */
  public static String outputEncodingProblem(String canonical, String encoding) {
    boolean valid = switch (family(canonical)) {
      case "string" -> Set.of("utf8", "large_utf8", "utf8_view").contains(encoding)
          || isDictionary(encoding, Set.of("utf8", "large_utf8"));
      case "binary" -> Set.of("binary", "large_binary", "binary_view").contains(encoding)
          || isDictionary(encoding, Set.of("binary", "large_binary"));
      case "list" -> encoding.equals("list") || encoding.equals("large_list");
      case "decimal" -> encoding.equals("decimal256")
          || (encoding.equals("decimal128") && precision(canonical.split(":")[1]) <= MAX_DECIMAL128_PRECISION);
      case "json" -> encoding.equals("arrow.json") || encoding.equals("lance.json");
      // The specification only classifies blob; its output encodings are the blob read modes, not listed there.
      case "blob" -> !encoding.isEmpty();
      default -> false;
    };
    return valid ? null : "'" + encoding + "' is not an output encoding of semantic type " + canonical;
  }

  /**
   * The Arrow layout a read of the field returns: the field's own entry, else the encoding its logical type
   * implies, else the type's default; null for types with a single representation.
   */
  public static String effectiveEncoding(Field field) {
    Resolved resolved = resolve(field.getLogicalType());
    String explicit = metadata(field, OUTPUT_ENCODING_KEY);
    if (explicit != null && outputEncodingProblem(resolved.canonical(), explicit) == null) {
      return explicit;
    }
    return resolved.impliedEncoding() != null ? resolved.impliedEncoding() : defaultEncoding(resolved.canonical());
  }

  /** The layout a legacy table returns for the field: its logical type's own Arrow type, in encoding terms. */
  public static String legacyEncoding(Field field) {
    Resolved resolved = resolve(field.getLogicalType());
    return resolved.impliedEncoding() != null ? resolved.impliedEncoding() : defaultEncoding(resolved.canonical());
  }

  /**
   * The schema of the upgrade commit: every legacy alias written as its canonical type with the output encoding it
   * implied, so that reads return the same Arrow types as before; a stray output-encoding entry (legacy tables do not
   * interpret it) is replaced for the same reason. Field ids, names, nesting and other metadata are kept.
   */
  public static List<Field> canonicalSchema(List<Field> legacy) {
    List<Field> fields = new ArrayList<>(legacy.size());
    for (Field field : legacy) {
      Resolved resolved = resolve(field.getLogicalType());
      Field.Builder canonical = field.toBuilder().setLogicalType(resolved.canonical())
          .removeMetadata(OUTPUT_ENCODING_KEY);
      if (resolved.impliedEncoding() != null) {
        canonical.putMetadata(OUTPUT_ENCODING_KEY, ByteString.copyFromUtf8(resolved.impliedEncoding()));
      }
      fields.add(canonical.build());
    }
    return fields;
  }

  /**
   * The upgrade commit of a legacy table at {@code latest}: a Project to {@link #canonicalSchema} carrying
   * {@link #ENABLE_PROPERTY}.
   */
  public static Transaction upgradeTransaction(Manifest latest, String uuid) {
    return Transaction.newBuilder()
        .setUuid(uuid)
        .setReadVersion(latest.getVersion())
        .putTransactionProperties(ENABLE_PROPERTY, ENABLE_VALUE)
        .setProject(Transaction.Project.newBuilder().addAllSchema(canonicalSchema(latest.getFieldsList())))
        .build();
  }

  /** Whether the transaction asks to turn the contract on. */
  public static boolean enables(Transaction txn) {
    String value = txn.getTransactionPropertiesMap().get(ENABLE_PROPERTY);
    return value != null;
  }

  /**
   * The flags that must stay set in the next version: the semantic-types bit once a table has it (also across
   * Restore), or when this transaction enables it.
   *
   * @param current the latest version (null when the transaction creates the table)
   */
  static long stickyFlags(TableState current, Transaction txn, FormatFeatures features) {
    if (!features.supportsSemanticTypes()) {
      if (enables(txn)) {
        throw notConfigured();
      }
      return 0;
    }
    boolean flagged = current != null && features.isSemanticTypesTable(current.manifest());
    return flagged || enables(txn) ? features.semanticTypesFlag() : 0;
  }

  static InvalidTransactionException notConfigured() {
    return new InvalidTransactionException("The transaction sets " + ENABLE_PROPERTY + ", but this coordinator has"
        + " no semantic-types feature flag configured (format.semantic-types.flag): it cannot mark the table");
  }

  static String metadata(Field field, String key) {
    var value = field.getMetadataMap().get(key);
    return value == null ? null : value.toString(StandardCharsets.UTF_8);
  }

  /** The extension a field carries (the deprecated {@code extension_name} field folded in), or null. */
  static String extensionName(Field field) {
    String name = metadata(field, EXTENSION_NAME_KEY);
    if (name == null && !field.getExtensionName().isEmpty()) {
      return field.getExtensionName();
    }
    return name;
  }

  private static String defaultEncoding(String canonical) {
    return switch (family(canonical)) {
      case "string" -> "utf8";
      case "binary" -> "binary";
      case "list" -> "list";
      case "decimal" -> precision(canonical.split(":")[1]) <= MAX_DECIMAL128_PRECISION ? "decimal128" : "decimal256";
      case "json" -> "arrow.json";
      default -> null;
    };
  }

  private static String family(String canonical) {
    if (canonical.startsWith("decimal:")) {
      return "decimal";
    }
    return canonical;
  }

  private static boolean isDictionary(String encoding, Set<String> valueLayouts) {
    String[] parts = encoding.split(":", -1);
    return parts.length == 3 && parts[0].equals("dictionary") && DICTIONARY_KEYS.contains(parts[1])
        && valueLayouts.contains(parts[2]);
  }

  private static int precision(String text) {
    Integer value = integer(text);
    return value == null ? -1 : value;
  }

  private static Integer integer(String text) {
    try {
      return Integer.parseInt(text);
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
