package dev.lancecommit.rules;

import java.util.Set;

/**
 * The {@code logical_type} strings stock Lance parses into an Arrow type when it opens a version (Lance's
 * {@code TryFrom<&LogicalType> for DataType} and the nested types its schema builds from children). A schema field
 * with any other string makes the version unreadable: Lance refuses to open it, or panics where the parse is
 * unwrapped. Tables following the semantic-type contract record canonical semantic names instead, checked by
 * {@link SemanticTypes}.
 */
final class LogicalTypes {
  private static final Set<String> SIMPLE = Set.of(
      "null", "bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64", "uint64", "halffloat", "float",
      "double", "string", "binary", "large_string", "large_binary", "blob", "json", "date32:day", "date64:ms",
      "time32:s", "time32:ms", "time64:us", "time64:ns", "duration:s", "duration:ms", "duration:us", "duration:ns");
  /** Types whose Arrow type comes from the field's children. */
  private static final Set<String> NESTED = Set.of("struct", "list", "list.struct", "large_list",
      "large_list.struct", "map");
  private static final Set<String> TIME_UNITS = Set.of("s", "ms", "us", "ns");

  private LogicalTypes() {}

  /** Why stock Lance cannot read {@code logicalType}, or null when it can. */
  static String problem(String logicalType) {
    if (SIMPLE.contains(logicalType) || NESTED.contains(logicalType)) {
      return null;
    }
    String[] parts = logicalType.split(":", -1);
    return switch (parts[0]) {
      case "fixed_size_list" -> fixedSizeList(parts);
      case "fixed_size_binary" -> parts.length == 2 && positiveInt(parts[1]) ? null
          : "a fixed_size_binary needs one size (fixed_size_binary:N)";
      case "dict" -> parts.length == 4 && problem(parts[1]) == null && problem(parts[2]) == null ? null
          : "a dictionary is dict:<value type>:<index type>:false";
      case "decimal" -> parts.length == 4 && (parts[1].equals("128") || parts[1].equals("256"))
          && inRange(parts[2], 0, 255) && inRange(parts[3], -128, 127) ? null
          : "a decimal is decimal:128|256:<precision>:<scale>";
      case "timestamp" -> parts.length >= 3 && TIME_UNITS.contains(parts[1]) && !parts[2].isEmpty() ? null
          : "a timestamp is timestamp:<s|ms|us|ns>:<time zone or ->";
      default -> "it is not a type Lance knows";
    };
  }

  private static String fixedSizeList(String[] parts) {
    if (parts.length < 3 || !positiveInt(parts[parts.length - 1])) {
      return "a fixed_size_list is fixed_size_list:<item type>:<size>";
    }
    String item = String.join(":", java.util.Arrays.copyOfRange(parts, 1, parts.length - 1));
    if (item.equals("lance.bfloat16") || item.equals("struct")) {
      return null;
    }
    String inner = problem(item);
    return inner == null ? null : "its item type " + item + " is unknown: " + inner;
  }

  private static boolean positiveInt(String s) {
    try {
      return Integer.parseInt(s) >= 0;
    } catch (NumberFormatException e) {
      return false;
    }
  }

  private static boolean inRange(String s, int min, int max) {
    try {
      int v = Integer.parseInt(s);
      return v >= min && v <= max;
    } catch (NumberFormatException e) {
      return false;
    }
  }
}
