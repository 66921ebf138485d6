package dev.lancecommit.events.audit;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.consumer.TestEvents;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AuditLogTest {
  private static final List<String> ORDERS = List.of("shop", "orders");
  private static final List<String> USERS = List.of("users");

  @TempDir Path dir;

  private static Instant minute(long n) {
    return TestEvents.T0.plusSeconds(60 * n);
  }

  @Test
  void replayingEventsChangesNothing() {
    try (AuditLog log = AuditLog.open(dir.resolve("audit.db"))) {
      for (long v = 1; v <= 5; v++) {
        assertThat(log.record(TestEvents.event(ORDERS, "o-1", v))).isEqualTo(RecordOutcome.INSERTED);
      }
      for (long v = 5; v >= 1; v--) {
        assertThat(log.record(TestEvents.event(ORDERS, "o-1", v))).isEqualTo(RecordOutcome.DUPLICATE);
      }
      assertThat(log.size()).isEqualTo(5);
    }
    try (AuditLog reopened = AuditLog.open(dir.resolve("audit.db"))) {
      assertThat(reopened.record(TestEvents.event(ORDERS, "o-1", 3))).isEqualTo(RecordOutcome.DUPLICATE);
      assertThat(reopened.history(ORDERS).entries()).extracting(AuditEntry::version)
          .containsExactly(1L, 2L, 3L, 4L, 5L);
    }
  }

  @Test
  void aSecondTransactionForARecordedVersionKeepsTheFirst() {
    try (AuditLog log = AuditLog.open(dir.resolve("audit.db"))) {
      CommitEvent first = TestEvents.event(ORDERS, "o-1", 1);
      log.record(first);
      CommitEvent other = first.toBuilder().transactionUuid("00000000-0000-4000-8000-000000000000").actor("mallory")
          .build();
      assertThat(log.record(other)).isEqualTo(RecordOutcome.CONFLICTING_DUPLICATE);
      assertThat(log.find("o-1", 1).orElseThrow().event()).isEqualTo(first);
    }
  }

  @Test
  void rowsCannotBeChangedOrDeleted() throws SQLException {
    Path db = dir.resolve("audit.db");
    try (AuditLog log = AuditLog.open(db)) {
      log.record(TestEvents.event(ORDERS, "o-1", 1));
    }
    try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement statement = raw.createStatement()) {
      assertThatThrownBy(() -> statement.executeUpdate("UPDATE commits SET actor = 'mallory'"))
          .hasMessageContaining("append-only");
      assertThatThrownBy(() -> statement.executeUpdate("DELETE FROM commits")).hasMessageContaining("append-only");
    }
    try (AuditLog log = AuditLog.open(db)) {
      assertThat(log.find("o-1", 1).orElseThrow().event().actor()).isEqualTo("alice");
    }
  }

  @Test
  void changesAnswersWhatChangedInATableBetweenTwoInstants() {
    try (AuditLog log = AuditLog.open(dir.resolve("audit.db"))) {
      for (long v = 1; v <= 6; v++) {
        CommitEvent.Builder event = TestEvents.append(ORDERS, "o-1", v);
        if (v == 4) {
          event.operation("Delete").rowsAdded(0).rowsRemoved(7).fragmentsAdded(0).actor("bob");
        }
        if (v == 5) {
          event.governed(false).actor("unknown").transactionUuid(null).operation("Unknown");
        }
        log.record(event.build());
        log.record(TestEvents.event(USERS, "u-1", v));
      }
      // a table of the same name, dropped and created again: another uuid, same history
      log.record(TestEvents.append(ORDERS, "o-2", 1).committedAt(minute(10)).build());

      TableChanges changes = log.changes(ORDERS, minute(2), minute(5));
      assertThat(changes.entries()).extracting(AuditEntry::version).containsExactly(2L, 3L, 4L);
      assertThat(changes.entries()).allMatch(e -> e.tableId().equals(ORDERS));
      assertThat(changes.rowsAdded()).isEqualTo(20 + 30);
      assertThat(changes.rowsRemoved()).isEqualTo(7);
      assertThat(changes.fragmentsAdded()).isEqualTo(2);
      assertThat(changes.actors()).containsExactly("alice", "bob");
      assertThat(changes.ungoverned()).isZero();

      TableChanges later = log.changes(ORDERS, minute(5), minute(11));
      assertThat(later.entries()).extracting(e -> e.event().tableUuid() + ":" + e.version())
          .containsExactly("o-1:5", "o-1:6", "o-2:1");
      assertThat(later.ungoverned()).isEqualTo(1);
      assertThat(later.entries().get(0).event().transactionUuid()).isNull();

      assertThat(log.changes(ORDERS, minute(2), minute(2)).entries()).isEmpty();
      assertThat(log.changes(List.of("shop", "missing"), minute(0), minute(100)).entries()).isEmpty();
      assertThatThrownBy(() -> log.changes(ORDERS, minute(5), minute(2)))
          .isInstanceOf(IllegalArgumentException.class);
    }
  }

  @Test
  void versionsOfABranchAreRecordedApartFromMainsAndFilesFromBeforeBranchesGainTheColumn() throws SQLException {
    Path db = dir.resolve("old.db");
    // a file written before branches existed: no branch column
    try (Connection raw = DriverManager.getConnection("jdbc:sqlite:" + db);
        Statement statement = raw.createStatement()) {
      statement.execute("""
          CREATE TABLE commits (table_uuid TEXT NOT NULL, version INTEGER NOT NULL, table_key TEXT NOT NULL,
            table_id TEXT NOT NULL, location TEXT NOT NULL, read_version INTEGER NOT NULL, operation TEXT NOT NULL,
            transaction_uuid TEXT, manifest_path TEXT NOT NULL, fragments_added INTEGER NOT NULL,
            fragments_removed INTEGER NOT NULL, rows_added INTEGER NOT NULL, rows_removed INTEGER NOT NULL,
            committed_at TEXT NOT NULL, committed_at_nanos INTEGER NOT NULL, actor TEXT NOT NULL,
            governed INTEGER NOT NULL, trace_id TEXT, recorded_at TEXT NOT NULL, UNIQUE (table_uuid, version))""");
    }
    CommitEvent main = TestEvents.event(ORDERS, "o-1", 3);
    CommitEvent branch = TestEvents.append(ORDERS, "o-1", 3).branch("dev").build();
    try (AuditLog log = AuditLog.open(db)) {
      assertThat(log.record(main)).isEqualTo(RecordOutcome.INSERTED);
      assertThat(log.record(branch)).isEqualTo(RecordOutcome.INSERTED);
      assertThat(log.record(branch)).isEqualTo(RecordOutcome.DUPLICATE);
    }
    try (AuditLog log = AuditLog.open(db)) {
      assertThat(log.find("o-1", 3).orElseThrow().event()).isEqualTo(main);
      assertThat(log.find("o-1@dev", 3).orElseThrow().event()).isEqualTo(branch);
      assertThat(log.find("o-1@dev", 3).orElseThrow().toJson().get("branch").asText()).isEqualTo("dev");
      assertThat(log.size()).isEqualTo(2);
    }
  }

  @Test
  void eventsReadBackEqualWhatWasRecorded() {
    CommitEvent event = TestEvents.append(List.of("a", "b", "c"), "abc", 3).trace(dev.lancecommit.events.TraceContext.of("00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01", "k=v")).build();
    try (AuditLog log = AuditLog.open(dir.resolve("audit.db"))) {
      log.record(event);
      assertThat(log.find("abc", 3).orElseThrow().event()).isEqualTo(event);
    }
  }

  @Test
  void theQueryCommandPrintsATableOrJsonLines() throws Exception {
    Path db = dir.resolve("audit.db");
    try (AuditLog log = AuditLog.open(db)) {
      for (long v = 1; v <= 4; v++) {
        log.record(TestEvents.event(ORDERS, "o-1", v));
      }
    }
    String table = runQuery("query", "--db", db.toString(), "--table", "shop$orders", "--from", minute(2).toString(),
        "--to", "2026-12-01T10:04:00Z");
    assertThat(table.lines().toList()).hasSize(4);
    assertThat(table).contains("VERSION", "Append", "alice").contains("2 version(s) of shop$orders; rows +50/-0");

    String jsonl = runQuery("query", "--db", db.toString(), "--table", "shop$orders", "--from", "2026-12-01",
        "--format", "jsonl");
    List<JsonNode> lines = jsonl.lines().map(AuditLogTest::json).toList();
    assertThat(lines).extracting(n -> n.get("version").asLong()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(lines.get(0).get("table").asText()).isEqualTo("shop$orders");

    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AuditConsumerMain.run(new String[] {"query", "--db", db.toString(), "--table", "shop$orders",
        "--from", "yesterday"}, new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString(StandardCharsets.UTF_8)).contains("--from must be an ISO-8601");
  }

  private static String runQuery(String... args) {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    ByteArrayOutputStream err = new ByteArrayOutputStream();
    int code = AuditConsumerMain.run(args, new PrintStream(out, true, StandardCharsets.UTF_8),
        new PrintStream(err, true, StandardCharsets.UTF_8));
    assertThat(code).as(err.toString(StandardCharsets.UTF_8)).isZero();
    return out.toString(StandardCharsets.UTF_8);
  }

  private static JsonNode json(String line) {
    try {
      return new ObjectMapper().readTree(line);
    } catch (Exception e) {
      throw new AssertionError("not JSON: " + line, e);
    }
  }
}
