package dev.lancecommit.events;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/** Builders of realistic commit events for tests. */
final class SampleEvents {
  private SampleEvents() {}

  static CommitEvent.Builder append(List<String> tableId, String tableUuid, long version) {
    return CommitEvent.builder()
        .tableId(tableId)
        .tableUuid(tableUuid)
        .location("s3://warehouse/" + String.join("/", tableId) + ".lance")
        .version(version)
        .readVersion(version - 1)
        .operation("Append")
        .transactionUuid(UUID.randomUUID().toString())
        .manifestPath("s3://warehouse/" + String.join("/", tableId) + ".lance/_versions/" + version + ".manifest")
        .fragmentsAdded(1)
        .rowsAdded(100L * version)
        .committedAt(Instant.parse("2026-12-01T10:15:30.123456789Z").plusSeconds(version))
        .actor("alice");
  }
}
