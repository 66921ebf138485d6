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
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;

/**
 * The JSON documents of catalog revisions (see {@link CatalogLayout}). Unknown fields are ignored when reading, so a
 * newer coordinator may add fields without breaking an older one sharing the warehouse.
 *
 * <pre>
 * table:     {"id", "revision", "revision_id", "location", "table_uuid",
 *             "state": "declared|registered|deregistered|dropped|renamed", "properties", "created_at", "updated_at",
 *             "renamed_to"?, "renamed_to_revision"?, "renamed_from"?}
 * namespace: {"id", "revision", "revision_id", "state": "active|dropped", "properties", "created_at", "updated_at"}
 * claim:     {"location", "revision", "state": "held|released", "table_id", "table_revision", "claim_id",
 *             "created_at"}
 * </pre>
 */
final class CatalogFiles {
  private static final ObjectMapper MAPPER =
      new ObjectMapper().configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);
  private static final String ACTIVE = "active";
  private static final String DROPPED = "dropped";
  private static final String HELD = "held";
  private static final String RELEASED = "released";

  private CatalogFiles() {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record NamespaceFile(
      @JsonProperty("id") List<String> id,
      @JsonProperty("revision") Long revision,
      @JsonProperty("revision_id") String revisionId,
      @JsonProperty("state") String state,
      @JsonProperty("properties") Map<String, String> properties,
      @JsonProperty("created_at") String createdAt,
      @JsonProperty("updated_at") String updatedAt) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record TableFile(
      @JsonProperty("id") List<String> id,
      @JsonProperty("revision") Long revision,
      @JsonProperty("revision_id") String revisionId,
      @JsonProperty("location") String location,
      @JsonProperty("table_uuid") String tableUuid,
      @JsonProperty("state") String state,
      @JsonProperty("properties") Map<String, String> properties,
      @JsonProperty("created_at") String createdAt,
      @JsonProperty("updated_at") String updatedAt,
      @JsonProperty("renamed_to") List<String> renamedTo,
      @JsonProperty("renamed_to_revision") Long renamedToRevision,
      @JsonProperty("renamed_from") List<String> renamedFrom) {}

  @JsonInclude(JsonInclude.Include.NON_NULL)
  record ClaimFile(
      @JsonProperty("location") String location,
      @JsonProperty("revision") Long revision,
      @JsonProperty("state") String state,
      @JsonProperty("table_id") List<String> tableId,
      @JsonProperty("table_revision") Long tableRevision,
      @JsonProperty("claim_id") String claimId,
      @JsonProperty("created_at") String createdAt) {}

  static byte[] write(NamespaceRecord record, long revision) {
    return bytes(new NamespaceFile(record.id(), revision, record.revisionId(), record.active() ? ACTIVE : DROPPED,
        new TreeMap<>(record.properties()), record.createdAt().toString(), record.updatedAt().toString()));
  }

  static byte[] write(TableRecord record, long revision) {
    return bytes(new TableFile(record.id(), revision, record.revisionId(), record.location(), record.tableUuid(),
        record.status().wireName(), new TreeMap<>(record.properties()), record.createdAt().toString(),
        record.updatedAt().toString(), record.renamedTo().orElse(null),
        record.renamedToRevision().isPresent() ? record.renamedToRevision().getAsLong() : null,
        record.renamedFrom().orElse(null)));
  }

  static byte[] write(LocationClaim claim, long revision) {
    return bytes(new ClaimFile(claim.location(), revision, claim.held() ? HELD : RELEASED, claim.tableId(),
        claim.tableRevision(), claim.claimId(), claim.createdAt().toString()));
  }

  /** The marker of a filled location registry (see {@link LocationRegistry}); read by people, not by code. */
  static byte[] registryMarker(Instant completedAt, int locations) {
    Map<String, Object> marker = new java.util.LinkedHashMap<>();
    marker.put("registry_version", 1);
    marker.put("completed_at", completedAt.toString());
    marker.put("backfilled_locations", locations);
    return bytes(marker);
  }

  static NamespaceRecord readNamespace(String key, byte[] data) {
    try {
      NamespaceFile file = MAPPER.readValue(data, NamespaceFile.class);
      require(file.id() != null, "id");
      require(file.state() != null, "state");
      boolean active = switch (file.state()) {
        case ACTIVE -> true;
        case DROPPED -> false;
        default -> throw new IllegalArgumentException("unknown namespace state '" + file.state() + "'");
      };
      Instant created = instant(file.createdAt());
      return new NamespaceRecord(file.id(), active, orEmpty(file.properties()), created,
          file.updatedAt() == null ? created : instant(file.updatedAt()), orBlank(file.revisionId()));
    } catch (IOException | RuntimeException e) {
      throw corrupt(key, e);
    }
  }

  static TableRecord readTable(String key, byte[] data) {
    try {
      TableFile file = MAPPER.readValue(data, TableFile.class);
      require(file.id() != null && !file.id().isEmpty(), "id");
      require(file.location() != null, "location");
      require(file.tableUuid() != null, "table_uuid");
      require(file.state() != null, "state");
      Instant created = instant(file.createdAt());
      return new TableRecord(file.id(), file.location(), file.tableUuid(), TableStatus.fromWireName(file.state()),
          orEmpty(file.properties()), created, file.updatedAt() == null ? created : instant(file.updatedAt()),
          orBlank(file.revisionId()), Optional.ofNullable(file.renamedTo()),
          file.renamedToRevision() == null ? OptionalLong.empty() : OptionalLong.of(file.renamedToRevision()),
          Optional.ofNullable(file.renamedFrom()));
    } catch (IOException | RuntimeException e) {
      throw corrupt(key, e);
    }
  }

  static LocationClaim readClaim(String key, byte[] data) {
    try {
      ClaimFile file = MAPPER.readValue(data, ClaimFile.class);
      require(file.location() != null, "location");
      require(file.tableId() != null && !file.tableId().isEmpty(), "table_id");
      require(file.tableRevision() != null && file.tableRevision() >= 1, "table_revision");
      require(file.claimId() != null, "claim_id");
      require(file.state() != null, "state");
      boolean held = switch (file.state()) {
        case HELD -> true;
        case RELEASED -> false;
        default -> throw new IllegalArgumentException("unknown claim state '" + file.state() + "'");
      };
      return new LocationClaim(file.location(), held, file.tableId(), file.tableRevision(), file.claimId(),
          instant(file.createdAt()));
    } catch (IOException | RuntimeException e) {
      throw corrupt(key, e);
    }
  }

  private static Map<String, String> orEmpty(Map<String, String> properties) {
    return properties == null ? Map.of() : properties;
  }

  private static String orBlank(String value) {
    return value == null ? "" : value;
  }

  private static Instant instant(String value) {
    return value == null ? Instant.EPOCH : Instant.parse(value);
  }

  private static void require(boolean present, String field) {
    if (!present) {
      throw new IllegalArgumentException("missing field '" + field + "'");
    }
  }

  private static CorruptCatalogEntryException corrupt(String key, Exception cause) {
    return new CorruptCatalogEntryException("Corrupt catalog entry " + key + ": " + cause.getMessage(), cause);
  }

  private static byte[] bytes(Object file) {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
