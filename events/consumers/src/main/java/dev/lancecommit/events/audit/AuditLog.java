package dev.lancecommit.events.audit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.TraceContext;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.sql.Types;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An append-only, queryable record of every commit: who committed what to which table and when, in a SQLite file.
 *
 * <p>One row per (table uuid, version), enforced by a UNIQUE constraint; a version of a Lance branch (numbered apart
 * from main) is recorded under its stream key {@code table_uuid@branch} in that column and names its branch in the
 * {@code branch} column (added to files written before branches existed, so their constraint still holds), so replaying events (duplicates,
 * republished events, a consumer restarted from older offsets) changes nothing. Triggers refuse UPDATE and DELETE:
 * rows are only ever added. Times are kept as ISO-8601 text and as epoch nanoseconds for range queries (instants
 * outside 1678..2262 are clamped for the range column only).
 *
 * <p>Thread-safe (one connection, calls serialized). The file is opened in WAL mode, so another process can query
 * it while a consumer writes.
 */
public final class AuditLog implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(AuditLog.class);
  private static final ObjectMapper JSON = new ObjectMapper();

  private static final List<String> SCHEMA = List.of(
      """
      CREATE TABLE IF NOT EXISTS commits (
        table_uuid TEXT NOT NULL,
        version INTEGER NOT NULL,
        table_key TEXT NOT NULL,
        table_id TEXT NOT NULL,
        location TEXT NOT NULL,
        read_version INTEGER NOT NULL,
        operation TEXT NOT NULL,
        transaction_uuid TEXT,
        manifest_path TEXT NOT NULL,
        fragments_added INTEGER NOT NULL,
        fragments_removed INTEGER NOT NULL,
        rows_added INTEGER NOT NULL,
        rows_removed INTEGER NOT NULL,
        committed_at TEXT NOT NULL,
        committed_at_nanos INTEGER NOT NULL,
        actor TEXT NOT NULL,
        governed INTEGER NOT NULL,
        trace_id TEXT,
        recorded_at TEXT NOT NULL,
        trace_parent TEXT,
        trace_state TEXT,
        branch TEXT,
        UNIQUE (table_uuid, version)
      )""",
      "CREATE INDEX IF NOT EXISTS commits_by_table_time ON commits (table_key, committed_at_nanos)",
      """
      CREATE TRIGGER IF NOT EXISTS commits_append_only_update BEFORE UPDATE ON commits
      BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END""",
      """
      CREATE TRIGGER IF NOT EXISTS commits_append_only_delete BEFORE DELETE ON commits
      BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END""");

  private static final String COLUMNS = "table_uuid, version, table_key, table_id, location, read_version, operation,"
      + " transaction_uuid, manifest_path, fragments_added, fragments_removed, rows_added, rows_removed, committed_at,"
      + " committed_at_nanos, actor, governed, trace_id, recorded_at, trace_parent, trace_state, branch";

  private final Path file;
  private final Clock clock;
  private final Connection connection;
  private boolean closed;

  private AuditLog(Path file, Clock clock, Connection connection) {
    this.file = file;
    this.clock = clock;
    this.connection = connection;
  }

  /** Opens the log in {@code file}, creating the file and its table when missing. */
  public static AuditLog open(Path file) {
    return open(file, Clock.systemUTC());
  }

  static AuditLog open(Path file, Clock clock) {
    Path absolute = file.toAbsolutePath();
    try {
      if (absolute.getParent() != null) {
        Files.createDirectories(absolute.getParent());
      }
      Connection connection = DriverManager.getConnection("jdbc:sqlite:" + absolute);
      try (Statement statement = connection.createStatement()) {
        statement.execute("PRAGMA journal_mode=WAL");
        statement.execute("PRAGMA synchronous=FULL");
        statement.execute("PRAGMA busy_timeout=10000");
        for (String ddl : SCHEMA) {
          statement.execute(ddl);
        }
        addTraceContextColumns(statement);
      } catch (SQLException e) {
        connection.close();
        throw e;
      }
      return new AuditLog(absolute, clock, connection);
    } catch (SQLException | java.io.IOException e) {
      throw new AuditStoreException("could not open audit log " + absolute + ": " + e.getMessage(), e);
    }
  }

  /**
   * Logs written before events carried a W3C trace context had only trace_id: add the two columns; and logs written
   * before branches existed have no branch column.
   */
  private static void addTraceContextColumns(Statement statement) throws SQLException {
    List<String> columns = new ArrayList<>();
    try (ResultSet info = statement.executeQuery("PRAGMA table_info(commits)")) {
      while (info.next()) {
        columns.add(info.getString("name"));
      }
    }
    for (String column : List.of("trace_parent", "trace_state", "branch")) {
      if (!columns.contains(column)) {
        statement.execute("ALTER TABLE commits ADD COLUMN " + column + " TEXT");
      }
    }
  }

  public Path file() {
    return file;
  }

  /**
   * Records the event unless its (table uuid, version) is recorded already.
   *
   * @throws AuditStoreException if the database could not be written (nothing was recorded)
   */
  public synchronized RecordOutcome record(CommitEvent event) {
    Objects.requireNonNull(event, "event");
    ensureOpen();
    String sql = "INSERT INTO commits (" + COLUMNS + ") VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)"
        + " ON CONFLICT (table_uuid, version) DO NOTHING";
    try (PreparedStatement insert = connection.prepareStatement(sql)) {
      int i = 0;
      insert.setString(++i, event.streamKey());
      insert.setLong(++i, event.version());
      insert.setString(++i, event.tableKey());
      insert.setString(++i, JSON.writeValueAsString(event.tableId()));
      insert.setString(++i, event.location());
      insert.setLong(++i, event.readVersion());
      insert.setString(++i, event.operation());
      setNullable(insert, ++i, event.transactionUuid());
      insert.setString(++i, event.manifestPath());
      insert.setInt(++i, event.fragmentsAdded());
      insert.setInt(++i, event.fragmentsRemoved());
      insert.setLong(++i, event.rowsAdded());
      insert.setLong(++i, event.rowsRemoved());
      insert.setString(++i, event.committedAt().toString());
      insert.setLong(++i, epochNanos(event.committedAt()));
      insert.setString(++i, event.actor());
      insert.setInt(++i, event.governed() ? 1 : 0);
      setNullable(insert, ++i, event.traceId());
      insert.setString(++i, clock.instant().toString());
      setNullable(insert, ++i, event.trace() == null ? null : event.trace().traceParent());
      setNullable(insert, ++i, event.trace() == null ? null : event.trace().traceState());
      setNullable(insert, ++i, event.branch());
      if (insert.executeUpdate() == 1) {
        return RecordOutcome.INSERTED;
      }
    } catch (SQLException | JsonProcessingException e) {
      throw new AuditStoreException("could not record commit " + event.id() + " in " + file + ": " + e.getMessage(),
          e);
    }
    AuditEntry existing = find(event.streamKey(), event.version())
        .orElseThrow(() -> new AuditStoreException("commit " + event.id() + " was neither inserted nor found", null));
    if (Objects.equals(existing.event().transactionUuid(), event.transactionUuid())) {
      return RecordOutcome.DUPLICATE;
    }
    LOG.error("table {} version {} was recorded with transaction {} but arrived again with transaction {}; keeping"
        + " the first record", event.tableKey(), event.version(), existing.event().transactionUuid(),
        event.transactionUuid());
    return RecordOutcome.CONFLICTING_DUPLICATE;
  }

  /**
   * The recorded entry of one version, if any.
   *
   * @param tableUuid the table uuid, or {@code tableUuid@branch} for a version of a branch
   */
  public synchronized Optional<AuditEntry> find(String tableUuid, long version) {
    ensureOpen();
    String sql = "SELECT " + COLUMNS + " FROM commits WHERE table_uuid = ? AND version = ?";
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, tableUuid);
      query.setLong(2, version);
      List<AuditEntry> found = read(query);
      return found.stream().findFirst();
    } catch (SQLException e) {
      throw new AuditStoreException("could not read " + file + ": " + e.getMessage(), e);
    }
  }

  /**
   * What changed in table {@code tableId} (every incarnation of that name, whatever its uuid) between {@code from}
   * (inclusive) and {@code to} (exclusive), by commit time.
   */
  public synchronized TableChanges changes(List<String> tableId, Instant from, Instant to) {
    Objects.requireNonNull(from, "from");
    Objects.requireNonNull(to, "to");
    if (tableId == null || tableId.isEmpty()) {
      throw new IllegalArgumentException("a table id needs at least one part");
    }
    if (to.isBefore(from)) {
      throw new IllegalArgumentException("the range ends (" + to + ") before it starts (" + from + ")");
    }
    ensureOpen();
    String sql = "SELECT " + COLUMNS + " FROM commits WHERE table_key = ? AND committed_at_nanos >= ?"
        + " AND committed_at_nanos < ? ORDER BY committed_at_nanos, version";
    try (PreparedStatement query = connection.prepareStatement(sql)) {
      query.setString(1, String.join(CommitEvent.ID_DELIMITER, tableId));
      query.setLong(2, epochNanos(from));
      query.setLong(3, epochNanos(to));
      return new TableChanges(tableId, from, to, read(query));
    } catch (SQLException e) {
      throw new AuditStoreException("could not query " + file + ": " + e.getMessage(), e);
    }
  }

  /** Every recorded version of {@code tableId}, by commit time. */
  public TableChanges history(List<String> tableId) {
    return changes(tableId, Instant.ofEpochSecond(-9_223_372_036L), Instant.ofEpochSecond(9_223_372_036L));
  }

  /** How many versions are recorded in all. */
  public synchronized long size() {
    ensureOpen();
    try (Statement statement = connection.createStatement();
        ResultSet rows = statement.executeQuery("SELECT COUNT(*) FROM commits")) {
      rows.next();
      return rows.getLong(1);
    } catch (SQLException e) {
      throw new AuditStoreException("could not count " + file + ": " + e.getMessage(), e);
    }
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      connection.close();
    } catch (SQLException e) {
      LOG.warn("closing audit log {}: {}", file, e.toString());
    }
  }

  private List<AuditEntry> read(PreparedStatement query) throws SQLException {
    List<AuditEntry> out = new ArrayList<>();
    try (ResultSet rows = query.executeQuery()) {
      while (rows.next()) {
        out.add(entry(rows));
      }
    }
    return out;
  }

  private AuditEntry entry(ResultSet rows) throws SQLException {
    List<String> tableId;
    try {
      tableId = JSON.readValue(rows.getString("table_id"), new TypeReference<List<String>>() {});
    } catch (JsonProcessingException e) {
      throw new SQLException("unreadable table_id: " + rows.getString("table_id"), e);
    }
    String branch = rows.getString("branch");
    String stream = rows.getString("table_uuid");
    String tableUuid = branch != null && stream.endsWith("@" + branch)
        ? stream.substring(0, stream.length() - branch.length() - 1) : stream;
    CommitEvent event = CommitEvent.builder()
        .tableId(tableId)
        .tableUuid(tableUuid)
        .branch(branch)
        .location(rows.getString("location"))
        .version(rows.getLong("version"))
        .readVersion(rows.getLong("read_version"))
        .operation(rows.getString("operation"))
        .transactionUuid(rows.getString("transaction_uuid"))
        .manifestPath(rows.getString("manifest_path"))
        .fragmentsAdded(rows.getInt("fragments_added"))
        .fragmentsRemoved(rows.getInt("fragments_removed"))
        .rowsAdded(rows.getLong("rows_added"))
        .rowsRemoved(rows.getLong("rows_removed"))
        .committedAt(Instant.parse(rows.getString("committed_at")))
        .actor(rows.getString("actor"))
        .governed(rows.getInt("governed") != 0)
        .trace(TraceContext.parse(rows.getString("trace_parent"), rows.getString("trace_state")).orElse(null))
        .build();
    return new AuditEntry(event, Instant.parse(rows.getString("recorded_at")));
  }

  private static void setNullable(PreparedStatement statement, int index, String value) throws SQLException {
    if (value == null) {
      statement.setNull(index, Types.VARCHAR);
    } else {
      statement.setString(index, value);
    }
  }

  /** Nanoseconds since the epoch, clamped to the long range (years 1678..2262). */
  static long epochNanos(Instant instant) {
    try {
      return Math.addExact(Math.multiplyExact(instant.getEpochSecond(), 1_000_000_000L), instant.getNano());
    } catch (ArithmeticException e) {
      return instant.getEpochSecond() < 0 ? Long.MIN_VALUE : Long.MAX_VALUE;
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("audit log " + file + " is closed");
    }
  }
}
