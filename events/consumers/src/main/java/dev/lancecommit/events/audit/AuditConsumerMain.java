package dev.lancecommit.events.audit;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.tracing.Telemetry;
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
import java.util.List;
import java.util.Locale;
import org.slf4j.LoggerFactory;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * The audit consumer command.
 *
 * <pre>
 * consume (default): --bootstrap HOST:PORT --db FILE [--topic lance.commits] [--group lance-commit-audit]
 *                    [--checkpoints FILE (default FILE.checkpoints.jsonl)] [--gap-timeout-ms N] [--set key=value]...
 *                    [--config FILE] [--&lt;consumer key&gt; VALUE]...
 * query:             --db FILE --table 'ns$table' [--from ISO] [--to ISO] [--format table|jsonl]
 * </pre>
 *
 * {@code --from} (inclusive) and {@code --to} (exclusive) take an instant ({@code 2026-12-01T10:00:00Z}), an offset
 * date-time, or a date (midnight UTC); without them the range is open. Exit codes: 0 done, 1 failure, 2 bad usage.
 */
public final class AuditConsumerMain {
  public static final String DEFAULT_GROUP = "lance-commit-audit";

  private static final ConfigKeys KEYS = new ConfigKeys();
  /** The audit database (SQLite). */
  public static final ConfigKey<String> DB = KEYS.requiredString("db", "The audit database file (SQLite).");
  public static final ConfigKey<String> CHECKPOINTS = KEYS.string("checkpoints", "",
      "Checkpoint file (JSON lines); empty = <db>.checkpoints.jsonl.");

  private static final String NAME = "AuditConsumerMain [consume]";
  private static final String DESCRIPTION = "Records every commit event in an append-only SQLite database (group "
      + DEFAULT_GROUP + " unless --group says otherwise). 'AuditConsumerMain query --help' describes the query.";

  /** The query subcommand's options. */
  @Command(name = "AuditConsumerMain query", description = "What changed in a table between two instants.")
  static final class Query {
    @Option(names = "--db", required = true, paramLabel = "FILE", description = "The audit database.")
    Path db;

    @Option(names = "--table", required = true, paramLabel = "ns$table", description = "Table id parts joined by $.")
    String table;

    @Option(names = "--from", paramLabel = "ISO", description = "Inclusive start: instant, offset date-time or date.")
    String from;

    @Option(names = "--to", paramLabel = "ISO", description = "Exclusive end: instant, offset date-time or date.")
    String to;

    @Option(names = "--format", paramLabel = "table|jsonl", defaultValue = "table",
        description = "Output format (default: ${DEFAULT-VALUE}).")
    String format;

    @Option(names = {"-h", "--help"}, usageHelp = true, description = "Print this help and exit.")
    boolean help;
  }

  private AuditConsumerMain() {}

  public static void main(String[] args) {
    ConsumerCommands.initLogging();
    System.exit(run(args, System.out, System.err));
  }

  /** Runs the command; returns the exit code. {@code consume} returns only when the JVM is stopped. */
  public static int run(String[] args, PrintStream out, PrintStream err) {
    String command = args.length > 0 && !args[0].startsWith("-") ? args[0] : "consume";
    String[] rest = args.length > 0 && !args[0].startsWith("-") ? Arrays.copyOfRange(args, 1, args.length) : args;
    try {
      return switch (command) {
        case "consume" -> consume(rest, out);
        case "query" -> query(rest, out);
        case "help" -> {
          out.print(consumeCommandLine().usage());
          out.println();
          new CommandLine(new Query()).usage(out, CommandLine.Help.Ansi.OFF);
          yield 0;
        }
        default -> throw new IllegalArgumentException("unknown command '" + command + "' (consume, query or help)");
      };
    } catch (IllegalArgumentException e) {
      err.println("error: " + e.getMessage());
      err.println("Run with --help (or 'query --help') for the options.");
      return 2;
    } catch (AuditStoreException e) {
      err.println("error: " + e.getMessage());
      return 1;
    }
  }

  /** Every key the consume command takes: the consumer library's and the audit log's. */
  public static ConfigKeys keys() {
    return ConfigKeys.of(ConsumerOptions.keys(), KEYS);
  }

  private static ConfigCommandLine consumeCommandLine() {
    return ConsumerCommands.commandLine(NAME, DESCRIPTION, null, KEYS);
  }

  private static int consume(String[] args, PrintStream out) {
    ConfigCommandLine commandLine = consumeCommandLine();
    if (!commandLine.parse(out, args)) {
      return 0;
    }
    Config settings = KEYS.parse(commandLine.values(KEYS));
    ConsumerOptions options = ConsumerCommands.options(commandLine, DEFAULT_GROUP);
    Path db = Path.of(settings.get(DB));
    Path checkpoints = Path.of(settings.get(CHECKPOINTS).isBlank() ? db + ".checkpoints.jsonl"
        : settings.get(CHECKPOINTS));
    AuditLog log = AuditLog.open(db);
    FileCheckpointStore store;
    try {
      store = FileCheckpointStore.open(checkpoints);
    } catch (RuntimeException e) {
      log.close();
      throw e;
    }
    Telemetry telemetry = Telemetry.fromEnvironment("lance-commit-audit");
    CommitEventConsumer consumer = new CommitEventConsumer(options, store, new AuditHandler(log),
        telemetry.openTelemetry());
    LoggerFactory.getLogger(AuditConsumerMain.class).info(
        "auditing topic {} of {} as group {} into {} (checkpoints {})", options.topic(), options.bootstrapServers(),
        options.groupId(), log.file(), store.file());
    return ConsumerCommands.runUntilStopped(consumer, telemetry, log, store);
  }

  private static int query(String[] args, PrintStream out) {
    Query query = new Query();
    CommandLine commandLine = new CommandLine(query);
    try {
      commandLine.parseArgs(args);
    } catch (CommandLine.ParameterException e) {
      throw new IllegalArgumentException(e.getMessage(), e);
    }
    if (commandLine.isUsageHelpRequested()) {
      commandLine.usage(out, CommandLine.Help.Ansi.OFF);
      return 0;
    }
    if (!Files.exists(query.db)) {
      throw new IllegalArgumentException("no audit database at " + query.db);
    }
    List<String> table = parseTableId(query.table);
    Instant from = query.from == null ? Instant.ofEpochSecond(-9_223_372_036L) : parseTime("from", query.from);
    Instant to = query.to == null ? Instant.ofEpochSecond(9_223_372_036L) : parseTime("to", query.to);
    String format = query.format.toLowerCase(Locale.ROOT);
    if (!format.equals("table") && !format.equals("jsonl")) {
      throw new IllegalArgumentException("--format must be table or jsonl, got '" + format + "'");
    }
    try (AuditLog log = AuditLog.open(query.db)) {
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
