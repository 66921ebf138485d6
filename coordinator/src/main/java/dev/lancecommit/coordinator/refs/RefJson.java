package dev.lancecommit.coordinator.refs;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.util.DefaultPrettyPrinter;
import com.fasterxml.jackson.core.util.Separators;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.nio.charset.StandardCharsets;

/**
 * Ref files as Lance writes them: {@code serde_json::to_vec_pretty} output (two-space indent, {@code "key": value}),
 * UTF-8. Read leniently: fields this build does not know are kept and written back unchanged.
 */
final class RefJson {
  private static final ObjectMapper MAPPER = new ObjectMapper();
  private static final DefaultPrettyPrinter PRETTY = new DefaultPrettyPrinter(Separators.createDefaultInstance()
      .withObjectFieldValueSpacing(Separators.Spacing.AFTER)
      .withObjectEmptySeparator("").withArrayEmptySeparator(""))
      .withObjectIndenter(new com.fasterxml.jackson.core.util.DefaultIndenter("  ", "\n"))
      .withArrayIndenter(new com.fasterxml.jackson.core.util.DefaultIndenter("  ", "\n"));

  private RefJson() {}

  static ObjectNode object() {
    return MAPPER.createObjectNode();
  }

  static ObjectNode parse(byte[] bytes, String what) {
    try {
      JsonNode node = MAPPER.readTree(bytes);
      if (node == null || !node.isObject()) {
        throw new CorruptRefException(what + " is not a JSON object");
      }
      return (ObjectNode) node;
    } catch (IOException e) {
      throw new CorruptRefException(what + " is not valid JSON: " + e.getMessage());
    }
  }

  static byte[] write(ObjectNode node) {
    try {
      return MAPPER.writer(PRETTY).writeValueAsString(node).getBytes(StandardCharsets.UTF_8);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a ref file", e);
    }
  }

  static long requiredLong(ObjectNode node, String field, String what) {
    JsonNode value = node.get(field);
    if (value == null || !value.canConvertToLong() || !value.isIntegralNumber() || value.longValue() < 0) {
      throw new CorruptRefException(what + " has no non-negative integer '" + field + "'");
    }
    return value.longValue();
  }

  static String optionalText(ObjectNode node, String field, String what) {
    JsonNode value = node.get(field);
    if (value == null || value.isNull()) {
      return null;
    }
    if (!value.isTextual()) {
      throw new CorruptRefException(what + ": '" + field + "' is not a string");
    }
    return value.asText();
  }
}
