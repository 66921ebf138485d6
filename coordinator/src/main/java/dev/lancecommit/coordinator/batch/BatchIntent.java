package dev.lancecommit.coordinator.batch;

import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.table.TableRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;
import java.util.Objects;

/**
 * Cluster mode: the announcement of an atomic batch that is about to hold lanes on other instances, written with
 * put-if-absent at {@code _catalog/batches/{batch_id}.intent} before its first hold. It names the member tables (as
 * {@link BatchRecord} names them) so that an instance taking one of them over learns the batch even when the old owner
 * died holding the member's lane: before its new lane serves anything it settles the batch (roll the member forward
 * when the record exists, else fence the batch with an abort at the record's key). JSON:
 *
 * <pre>
 * {"format": 1, "batch_id": "...", "created_at": "...",
 *  "members": [{"table_id": ["sales", "orders"], "table_uuid": "...", "location": "..."}]}
 * </pre>
 */
record BatchIntent(
    @JsonProperty("format") int format,
    @JsonProperty("batch_id") String batchId,
    @JsonProperty("created_at") String createdAt,
    @JsonProperty("members") List<Member> members) {

  private static final ObjectMapper MAPPER = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  BatchIntent {
    members = List.copyOf(members);
  }

  record Member(
      @JsonProperty("table_id") List<String> tableId,
      @JsonProperty("table_uuid") String tableUuid,
      @JsonProperty("location") String location) {

    static Member of(TableRef table) {
      return new Member(table.id(), table.tableUuid(), table.location());
    }
  }

  /** True when the batch has a member for {@code table} (same location and table uuid, as lanes are keyed). */
  boolean names(TableRef table) {
    return members.stream().anyMatch(m -> m.location().equals(table.location())
        && Objects.equals(m.tableUuid(), table.tableUuid()));
  }

  byte[] encode() {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static BatchIntent decode(byte[] bytes) {
    try {
      BatchIntent intent = MAPPER.readValue(bytes, BatchIntent.class);
      if (intent.format() != BatchRecord.FORMAT) {
        throw new IllegalArgumentException("batch intent format " + intent.format() + " is not " + BatchRecord.FORMAT);
      }
      return intent;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
