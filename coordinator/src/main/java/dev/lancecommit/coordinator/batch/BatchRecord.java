package dev.lancecommit.coordinator.batch;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonProperty;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.table.TableRef;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * The durable record of an atomic batch whose members all passed their checks: written once, with put-if-absent,
 * before any member version is written. Its existence is the batch's commit point: a coordinator that finds it
 * without its done marker completes the batch (writes every member version still missing). JSON:
 *
 * <pre>
 * {"format": 1, "batch_id": "...", "created_at": "...", "operation": "BatchCreateTableVersions", "actor": "...",
 *  "members": [{"index": 0, "table_id": ["sales", "orders"], "table_uuid": "...", "location": "...",
 *               "version": 7, "transaction_uuid": "...", "transaction": "base64 of the Lance Transaction",
 *               "rebase": false}]}
 * </pre>
 *
 * {@code index} is the member's position in the request; {@code version} the version it was checked to make.
 *
 * <p>In cluster mode the same key can instead hold an <em>abort</em>: {@code {"format": 1, "batch_id": "...",
 * "aborted_by": "<owner URL>", "members": []}}, written with put-if-absent by the owner of a member's table when
 * the coordinating instance stopped renewing its hold before the record was written. Whoever wins the key decides:
 * the record (the batch happens) or the abort (nothing of it is written).
 */
record BatchRecord(
    @JsonProperty("format") int format,
    @JsonProperty("batch_id") String batchId,
    @JsonProperty("created_at") String createdAt,
    @JsonProperty("operation") String operation,
    @JsonProperty("actor") String actor,
    @JsonProperty("members") List<Member> members,
    @JsonProperty("aborted_by") @JsonInclude(JsonInclude.Include.NON_NULL) String abortedBy) {

  static final int FORMAT = 1;
  private static final ObjectMapper MAPPER = new ObjectMapper()
      .disable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES);

  BatchRecord {
    members = List.copyOf(members);
  }

  BatchRecord(int format, String batchId, String createdAt, String operation, String actor, List<Member> members) {
    this(format, batchId, createdAt, operation, actor, members, null);
  }

  /** The abort of a batch that was never recorded, written at its record's key by the owner {@code by}. */
  static BatchRecord abort(String batchId, String at, String by) {
    return new BatchRecord(FORMAT, batchId, at, "aborted", "", List.of(), by);
  }

  boolean aborted() {
    return abortedBy != null;
  }

  record Member(
      @JsonProperty("index") int index,
      @JsonProperty("table_id") List<String> tableId,
      @JsonProperty("table_uuid") String tableUuid,
      @JsonProperty("location") String location,
      @JsonProperty("version") long version,
      @JsonProperty("transaction_uuid") String transactionUuid,
      @JsonProperty("transaction") byte[] transaction,
      @JsonProperty("rebase") boolean rebase) {

    TableRef table() {
      return new TableRef(tableId, location, tableUuid);
    }
  }

  byte[] encode() {
    try {
      return MAPPER.writerWithDefaultPrettyPrinter().writeValueAsBytes(this);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  static BatchRecord decode(byte[] bytes) {
    try {
      BatchRecord record = MAPPER.readValue(bytes, BatchRecord.class);
      if (record.format() != FORMAT) {
        throw new IllegalArgumentException("batch record format " + record.format() + " is not " + FORMAT);
      }
      return record;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
