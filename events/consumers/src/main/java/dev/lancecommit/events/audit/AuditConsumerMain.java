package dev.lancecommit.events.audit;

import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.consumer.CommandArgs;
import dev.lancecommit.events.consumer.CommitEventConsumer;
import dev.lancecommit.events.consumer.ConsumerCommands;
import dev.lancecommit.events.consumer.ConsumerOptions;
import dev.lancecommit.events.consumer.FileCheckpointStore;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.LocalDate;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import org.slf4j.LoggerFactory;

/**
 * The audit consumer command.
 *
 * <pre>
 * consume (default): --bootstrap HOST:PORT --db FILE [--topic lance.commits] [--group lance-commit-audit]
 *                    [--checkpoints FILE (default FILE.checkpoints.jsonl)] [--gap-timeout-ms N] [--set key=value]...
 * query:             --db FILE --table 'ns$table' [--from ISO] [--to ISO] [--format table|jsonl]
 * </pre>
 *
 * {@code --from} (inclusive) and {@code --to} (exclusive) take an instant ({@code 2026-12-01T10:00:00Z}), an offset
 * date-time, or a date (midnight UTC); without them the range is open. Exit codes: 0 done, 1 failure, 2 bad usage.
 */
public final class AuditConsumerMain {
  public static final String DEFAULT_GROUP = "lance-commit-audit";

  private static final String USAGE = """
      usage: AuditConsumerMain [consume] --bootstrap HOST:PORT --db FILE [--topic T] [--group G]
                               [--checkpoints FILE] [--gap-timeout-ms N] [--set key=value]...
             AuditConsumerMain query --db FILE --table 'ns$table' [--from ISO] [--to ISO] [--format table|jsonl]""";

  private AuditConsumerMain() {}

  public static void main(String[] args) {
    ConsumerCommands.initLogging();
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns the exit code. {@code consume} returns only when the JVM is stopped. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length > 0 && !args[0].startsWith("--") ? args[0] : "consume";
    try {
      return switch (command) {
        case "consume" -> consume(CommandArgs.parse(args, consumeFlags()));
        case "query" -> query(CommandArgs.parse(args, Set.of("db", "table", "from", "to", "format")), out);
        case "help", "-h" -> {
          out.println(USAGE);
          yield 0;
        }
        default -> throw new IllegalArgumentException("unknown command '" + command + "'");
      };
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println(USAGE);
      return 2;
    } catch (AuditStoreException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
  }

  private static Set<String> consumeFlags() {
    Set<String> flags = new HashSet<>(ConsumerCommands.CONSUMER_FLAGS);
    flags.add("db");
    return flags;
  }

  private static int consume(CommandArgs args) {
    Path db = Path.of(args.require("db"));
    ConsumerOptions options = ConsumerCommands.options(args, DEFAULT_GROUP);
    Path checkpoints = Path.of(args.get("checkpoints", db + ".checkpoints.jsonl"));
    AuditLog log = AuditLog.open(db);
    FileCheckpointStore store;
    try {
      store = FileCheckpointStore.open(checkpoints);
    } catch (RuntimeException e) {
      log.close();
      throw e;
    }
    CommitEventConsumer consumer = new CommitEventConsumer(options, store, new AuditHandler(log));
    LoggerFactory.getLogger(AuditConsumerMain.class).info(
        "auditing topic {} of {} as group {} into {} (checkpoints {})", options.topic(), options.bootstrapServers(),
        options.groupId(), log.file(), store.file());
    return ConsumerCommands.runUntilStopped(consumer, log, store);
  }

  private static int query(CommandArgs args, PrintStream out) {
    Path db = Path.of(args.require("db"));
    if (!Files.exists(db)) {
      throw new IllegalArgumentException("no audit database at " + db);
    }
    List<String> table = parseTableId(args.require("table"));
    Instant from = args.get("from").map(v -> parseTime("from", v)).orElse(Instant.ofEpochSecond(-9_223_372_036L));
    Instant to = args.get("to").map(v -> parseTime("to", v)).orElse(Instant.ofEpochSecond(9_223_372_036L));
    String format = args.get("format", "table").toLowerCase(Locale.ROOT);
    if (!format.equals("table") && !format.equals("jsonl")) {
      throw new IllegalArgumentException("--format must be table or jsonl, got '" + format + "'");
    }
    try (AuditLog log = AuditLog.open(db)) {
      TableChanges changes = log.changes(table, from, to);
      if (format.equals("jsonl")) {
        changes.entries().forEach(entry -> out.println(entry.toJson().toString()));
      } else {
        printTable(changes, out);
      }
    }
    return 0;
  }

  /** {@code ns$table} (any depth) into its parts. */
  static List<String> parseTableId(String text) {
    List<String> parts = Arrays.asList(text.split("\\$", -1));
    if (parts.stream().anyMatch(String::isBlank)) {
      throw new IllegalArgumentException("--table must be id parts joined with '$', e.g. 'ns$table', got '"
          + text + "'");
    }
    return parts;
  }

  static Instant parseTime(String flag, String text) {
    try {
      return Instant.parse(text);
    } catch (DateTimeParseException e) {
      // try the next form
    }
    try {
      return OffsetDateTime.parse(text).toInstant();
    } catch (DateTimeParseException e) {
      // try the next form
    }
    try {
      return LocalDate.parse(text).atStartOfDay(ZoneOffset.UTC).toInstant();
    } catch (DateTimeParseException e) {
      throw new IllegalArgumentException("--" + flag + " must be an ISO-8601 instant, offset date-time or date, got '"
          + text + "'");
    }
  }

  static void printTable(TableChanges changes, PrintStream out) {
    List<String[]> rows = new ArrayList<>();
    rows.add(new String[] {"VERSION", "COMMITTED_AT", "OPERATION", "ACTOR", "ROWS+", "ROWS-", "FRAGS+", "FRAGS-",
        "GOVERNED", "TRANSACTION"});
    for (AuditEntry entry : changes.entries()) {
      CommitEvent e = entry.event();
      rows.add(new String[] {Long.toString(e.version()), e.committedAt().toString(), e.operation(), e.actor(),
          Long.toString(e.rowsAdded()), Long.toString(e.rowsRemoved()), Integer.toString(e.fragmentsAdded()),
          Integer.toString(e.fragmentsRemoved()), e.governed() ? "yes" : "NO",
          e.transactionUuid() == null ? "-" : e.transactionUuid()});
    }
    int[] widths = new int[rows.get(0).length];
    for (String[] row : rows) {
      for (int i = 0; i < row.length; i++) {
        widths[i] = Math.max(widths[i], row[i].length());
      }
    }
    for (String[] row : rows) {
      StringBuilder line = new StringBuilder();
      for (int i = 0; i < row.length; i++) {
        line.append(String.format(Locale.ROOT, i == row.length - 1 ? "%s" : "%-" + widths[i] + "s  ", row[i]));
      }
      out.println(line.toString().stripTrailing());
    }
    out.printf(Locale.ROOT, "%d version(s) of %s; rows +%d/-%d, fragments +%d/-%d; actors: %s; ungoverned: %d%n",
        changes.entries().size(), String.join(CommitEvent.ID_DELIMITER, changes.tableId()), changes.rowsAdded(),
        changes.rowsRemoved(), changes.fragmentsAdded(), changes.fragmentsRemoved(),
        changes.actors().isEmpty() ? "-" : String.join(", ", changes.actors()), changes.ungoverned());
  }
}
