package dev.lancecommit.coordinator.http;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Field;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * The spec's {@code JsonArrowSchema} built from a manifest's {@code lance.file.Field} list: fields are rebuilt into
 * a tree through {@code parent_id} (-1 = top level) and each Lance {@code logical_type} becomes an Arrow JSON type
 * name as the Lance namespace implementations spell them ({@code int64}, {@code utf8}, {@code float32},
 * {@code list}, {@code fixed_size_list} with {@code length}, {@code decimal128} with {@code length = precision *
 * 1000 + scale}, ...). Units and time zones have no place in {@code JsonArrowDataType} and are not reported.
 */
final class ArrowSchemaJson {
  static final String EXTENSION_NAME_KEY = "ARROW:extension:name";

  private static final Map<String, String> SIMPLE = Map.ofEntries(
      Map.entry("null", "null"), Map.entry("bool", "bool"),
      Map.entry("int8", "int8"), Map.entry("uint8", "uint8"), Map.entry("int16", "int16"),
      Map.entry("uint16", "uint16"), Map.entry("int32", "int32"), Map.entry("uint32", "uint32"),
      Map.entry("int64", "int64"), Map.entry("uint64", "uint64"),
      Map.entry("halffloat", "float16"), Map.entry("float", "float32"), Map.entry("double", "float64"),
      Map.entry("string", "utf8"), Map.entry("large_string", "large_utf8"),
      Map.entry("binary", "binary"), Map.entry("large_binary", "large_binary"),
      Map.entry("date32:day", "date32"), Map.entry("date64:ms", "date64"));

  private ArrowSchemaJson() {}

  static JsonObject schema(List<Field> fields, Map<String, ByteString> schemaMetadata) {
    Map<Integer, List<Field>> children = new LinkedHashMap<>();
    List<Field> topLevel = new ArrayList<>();
    for (Field field : fields) {
      if (field.getParentId() < 0) {
        topLevel.add(field);
      } else {
        children.computeIfAbsent(field.getParentId(), k -> new ArrayList<>()).add(field);
      }
    }
    JsonArray out = new JsonArray();
    for (Field field : topLevel) {
      out.add(field(field, children));
    }
    JsonObject schema = new JsonObject().put("fields", out);
    if (!schemaMetadata.isEmpty()) {
      schema.put("metadata", utf8(schemaMetadata));
    }
    return schema;
  }

  /** The {@code JsonArrowDataType} of one field of {@code schema} (its children included). */
  static JsonObject dataType(List<Field> schema, Field field) {
    Map<Integer, List<Field>> children = new LinkedHashMap<>();
    for (Field f : schema) {
      if (f.getParentId() >= 0) {
        children.computeIfAbsent(f.getParentId(), k -> new ArrayList<>()).add(f);
      }
    }
    return type(field.getLogicalType(), children.getOrDefault(field.getId(), List.of()), children);
  }

  private static JsonObject field(Field field, Map<Integer, List<Field>> children) {
    JsonObject out = new JsonObject()
        .put("name", field.getName())
        .put("nullable", field.getNullable())
        .put("type", type(field.getLogicalType(), children.getOrDefault(field.getId(), List.of()), children));
    Map<String, ByteString> metadata = new TreeMap<>(field.getMetadataMap());
    if (!field.getExtensionName().isEmpty()) {
      metadata.putIfAbsent(EXTENSION_NAME_KEY, ByteString.copyFromUtf8(field.getExtensionName()));
    }
    if (!metadata.isEmpty()) {
      out.put("metadata", utf8(metadata));
    }
    return out;
  }

  private static JsonObject type(String logical, List<Field> kids, Map<Integer, List<Field>> children) {
    String simple = SIMPLE.get(logical);
    if (simple != null) {
      return named(simple);
    }
    switch (logical) {
      case "struct":
        return withChildren("struct", kids, children);
      case "list":
      case "list.struct":
        return withChildren("list", kids, children);
      case "large_list":
      case "large_list.struct":
        return withChildren("large_list", kids, children);
      case "map":
        return withChildren("map", kids, children);
      default:
        break;
    }
    String[] parts = logical.split(":");
    switch (parts[0]) {
      case "time32":
      case "time64":
      case "timestamp":
      case "duration":
        return named(parts[0]);
      case "decimal":
        if (parts.length == 4 && (parts[1].equals("128") || parts[1].equals("256"))) {
          return named("decimal" + parts[1])
              .put("length", Long.parseLong(parts[2]) * 1000 + Long.parseLong(parts[3]));
        }
        if (parts.length == 3) {
          // A semantic-types table's canonical decimal:{p}:{s}; its default layout is 128-bit up to 38 digits.
          long precision = Long.parseLong(parts[1]);
          return named(precision <= 38 ? "decimal128" : "decimal256")
              .put("length", precision * 1000 + Long.parseLong(parts[2]));
        }
        break;
      case "fixed_size_binary":
        if (parts.length == 2) {
          return named("fixed_size_binary").put("length", Long.parseLong(parts[1]));
        }
        break;
      case "fixed_size_list":
        return fixedSizeList(logical);
      case "dict":
        // dict:{value}:{key}:{ordered}; Arrow JSON reports a dictionary column as its value type
        if (parts.length >= 4) {
          return type(String.join(":", List.of(parts).subList(1, parts.length - 2)), kids, children);
        }
        break;
      default:
        break;
    }
    return named(logical);
  }

  /** {@code fixed_size_list:{item logical type}:{size}}; Lance keeps no child field, the item is a nullable "item". */
  private static JsonObject fixedSizeList(String logical) {
    int lastColon = logical.lastIndexOf(':');
    String itemType = logical.substring("fixed_size_list:".length(), lastColon);
    long size = Long.parseLong(logical.substring(lastColon + 1));
    JsonObject item = new JsonObject().put("name", "item").put("nullable", true);
    if (itemType.equals("lance.bfloat16")) {
      item.put("type", named("fixed_size_binary").put("length", 2L))
          .put("metadata", new JsonObject().put(EXTENSION_NAME_KEY, "lance.bfloat16"));
    } else {
      item.put("type", type(itemType, List.of(), Map.of()));
    }
    return named("fixed_size_list").put("fields", new JsonArray().add(item)).put("length", size);
  }

  private static JsonObject withChildren(String name, List<Field> kids, Map<Integer, List<Field>> children) {
    JsonArray fields = new JsonArray();
    for (Field kid : kids) {
      fields.add(field(kid, children));
    }
    return named(name).put("fields", fields);
  }

  private static JsonObject named(String name) {
    return new JsonObject().put("type", name);
  }

  private static JsonObject utf8(Map<String, ByteString> metadata) {
    JsonObject out = new JsonObject();
    new TreeMap<>(metadata).forEach((k, v) -> out.put(k, v.toString(StandardCharsets.UTF_8)));
    return out;
  }
}
