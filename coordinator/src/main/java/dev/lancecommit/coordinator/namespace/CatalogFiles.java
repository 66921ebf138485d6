package dev.lancecommit.coordinator.namespace;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** The JSON documents the catalog keeps under {@code _catalog/}. Unknown fields are ignored when reading. */
final class CatalogFiles {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

  private CatalogFiles() {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record NamespaceFile(
      @JsonProperty("id") List<String> id,
      @JsonProperty("properties") Map<String, String> properties,
      @JsonProperty("created_at") String createdAt) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record TableFile(
      @JsonProperty("id") List<String> id,
      @JsonProperty("location") String location,
      @JsonProperty("table_uuid") String tableUuid,
      @JsonProperty("state") String state,
      @JsonProperty("properties") Map<String, String> properties,
      @JsonProperty("created_at") String createdAt) {}

  static byte[] write(NamespaceEntry entry) {
    return bytes(new NamespaceFile(
        entry.id(), new TreeMap<>(entry.properties()), entry.createdAt().toString()));
  }

  static byte[] write(TableEntry entry) {
    return bytes(new TableFile(
        entry.id(), entry.location(), entry.tableUuid(), entry.state().wireName(),
        new TreeMap<>(entry.properties()), entry.createdAt().toString()));
  }

  static NamespaceEntry readNamespace(String key, byte[] data) {
    try {
      NamespaceFile file = MAPPER.readValue(data, NamespaceFile.class);
      require(key, file.id() != null, "id");
      return new NamespaceEntry(
          file.id(), file.properties() == null ? Map.of() : file.properties(), instant(key, file.createdAt()));
    } catch (IOException | RuntimeException e) {
      throw corrupt(key, e);
    }
  }

  static TableEntry readTable(String key, byte[] data) {
    try {
      TableFile file = MAPPER.readValue(data, TableFile.class);
      require(key, file.id() != null, "id");
      require(key, file.location() != null, "location");
      require(key, file.tableUuid() != null, "table_uuid");
      require(key, file.state() != null, "state");
      return new TableEntry(
          file.id(), file.location(), file.tableUuid(), TableEntry.State.fromWireName(file.state()),
          file.properties() == null ? Map.of() : file.properties(), instant(key, file.createdAt()));
    } catch (IOException | RuntimeException e) {
      throw corrupt(key, e);
    }
  }

  private static Instant instant(String key, String value) {
    return value == null ? Instant.EPOCH : Instant.parse(value);
  }

  private static void require(String key, boolean present, String field) {
    if (!present) {
      throw new IllegalArgumentException("missing field '" + field + "'");
    }
  }

  private static IllegalStateException corrupt(String key, Exception cause) {
    return new IllegalStateException("Corrupt catalog entry " + key + ": " + cause.getMessage(), cause);
  }

  private static byte[] bytes(Object file) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
