package dev.lancecommit.events.consumer;

import dev.lancecommit.events.CommitEvent;
import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Realistic commit events for the consumer tests. */
public final class TestEvents {
  public static final Instant T0 = Instant.parse("2026-12-01T10:00:00Z");

  private TestEvents() {}

  /** An Append of {@code 10 * version} rows committed by alice {@code version} minutes after {@link #T0}. */
  public static CommitEvent.Builder append(List<String> tableId, String tableUuid, long version) {
    String root = "/warehouse/" + String.join("/", tableId) + ".lance";
    return CommitEvent.builder()
        .tableId(tableId)
        .tableUuid(tableUuid)
        .location(root)
        .version(version)
        .readVersion(version - 1)
        .operation(version == 1 ? "Overwrite" : "Append")
        .transactionUuid(UUID.nameUUIDFromBytes((tableUuid + ":" + version).getBytes()).toString())
        .manifestPath(root + "/_versions/" + version + ".manifest")
        .fragmentsAdded(1)
        .rowsAdded(10L * version)
        .committedAt(T0.plusSeconds(60 * version))
        .actor("alice");
  }

  public static CommitEvent event(List<String> tableId, String tableUuid, long version) {
    return append(tableId, tableUuid, version).build();
  }
}
