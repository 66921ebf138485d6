package dev.lancecommit.coordinator.http;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;

/** Typed, strict access to a JSON request body; every type mismatch is a 400 naming the field. */
final class JsonBody {
  private final JsonObject json;

  private JsonBody(JsonObject json) {
    this.json = json;
  }

  /**
   * An absent or blank body, or JSON {@code null}, reads as {@code {}}: every field of the spec's request objects is
   * optional. Lance's Rust REST client sends {@code null} for operations whose parameters all go in the query.
   */
  static JsonBody parseOrEmpty(Buffer body) {
    if (body == null || body.toString().isBlank() || body.toString().strip().equals("null")) {
      return new JsonBody(new JsonObject());
    }
    return parse(body);
  }

  static JsonBody parse(Buffer body) {
    if (body == null || body.length() == 0) {
      throw ApiException.invalidInput("Request body is empty");
    }
    Object value;
    try {
      value = body.toJsonValue();
    } catch (DecodeException e) {
      throw ApiException.invalidInput("Request body is not valid JSON", e.getMessage());
    }
    if (!(value instanceof JsonObject object)) {
      throw ApiException.invalidInput("Request body must be a JSON object");
    }
    return new JsonBody(object);
  }

  Optional<String> string(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof String s)) {
      throw wrongType(field, "a string");
    }
    return Optional.of(s);
  }

  Optional<Boolean> bool(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof Boolean b)) {
      throw wrongType(field, "a boolean");
    }
    return Optional.of(b);
  }

  OptionalLong nonNegativeLong(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return OptionalLong.empty();
    }
    if (!(value instanceof Integer || value instanceof Long) || ((Number) value).longValue() < 0) {
      throw wrongType(field, "a non-negative integer");
    }
    return OptionalLong.of(((Number) value).longValue());
  }

  /** A whole number, negative ones included (the spec's {@code end_version: -1}). */
  OptionalLong longValue(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return OptionalLong.empty();
    }
    if (!(value instanceof Integer || value instanceof Long)) {
      throw wrongType(field, "an integer");
    }
    return OptionalLong.of(((Number) value).longValue());
  }

  /** An array of JSON objects, each read as a body of its own. */
  Optional<List<JsonBody>> objectList(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof JsonArray array)) {
      throw wrongType(field, "an array of objects");
    }
    List<JsonBody> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (!(item instanceof JsonObject object)) {
        throw wrongType(field, "an array of objects");
      }
      out.add(new JsonBody(object));
    }
    return Optional.of(List.copyOf(out));
  }

  Optional<List<String>> stringList(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof JsonArray array)) {
      throw wrongType(field, "an array of strings");
    }
    List<String> out = new ArrayList<>(array.size());
    for (Object item : array) {
      if (!(item instanceof String s)) {
        throw wrongType(field, "an array of strings");
      }
      out.add(s);
    }
    return Optional.of(List.copyOf(out));
  }

  Map<String, String> stringMap(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Map.of();
    }
    if (!(value instanceof JsonObject object)) {
      throw wrongType(field, "an object of string values");
    }
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> entry : object) {
      if (!(entry.getValue() instanceof String s)) {
        throw wrongType(field + "." + entry.getKey(), "a string");
      }
      out.put(entry.getKey(), s);
    }
    return out;
  }

  /** An object field as a body of its own. */
  Optional<JsonBody> object(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Optional.empty();
    }
    if (!(value instanceof JsonObject object)) {
      throw wrongType(field, "an object");
    }
    return Optional.of(new JsonBody(object));
  }

  /** An object of string-or-null values; a null value is an empty Optional. */
  Map<String, Optional<String>> nullableStringMap(String field) {
    Object value = json.getValue(field);
    if (value == null) {
      return Map.of();
    }
    if (!(value instanceof JsonObject object)) {
      throw wrongType(field, "an object of string or null values");
    }
    Map<String, Optional<String>> out = new LinkedHashMap<>();
    for (String key : object.fieldNames()) {
      Object v = object.getValue(key);
      if (v != null && !(v instanceof String)) {
        throw wrongType(field + "." + key, "a string or null");
      }
      out.put(key, Optional.ofNullable((String) v));
    }
    return out;
  }

  /** Whether the field is present (null included). */
  boolean has(String field) {
    return json.containsKey(field);
  }

  /** The body itself as a map of strings (a spec operation whose REST body is a bare map). */
  Map<String, String> asStringMap() {
    Map<String, String> out = new LinkedHashMap<>();
    for (Map.Entry<String, Object> entry : json) {
      if (!(entry.getValue() instanceof String s)) {
        throw wrongType(entry.getKey(), "a string");
      }
      out.put(entry.getKey(), s);
    }
    return out;
  }

  JsonObject json() {
    return json;
  }

  static JsonBody of(JsonObject json) {
    return new JsonBody(json);
  }

  private static ApiException wrongType(String field, String expected) {
    return ApiException.invalidInput("Field '" + field + "' must be " + expected);
  }
}
