package dev.lancecommit.chaos.bench;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Collectors;

/**
 * Where the benchmark process's CPU went during a window, by kind of thread: read from Linux's
 * {@code /proc/self/task/*}/stat (user and system time of every thread, the JIT compiler's, the GC's and Lance's
 * native threads included, which the JVM's thread bean does not see). On one machine the writers, their HTTP client,
 * the coordinator and the JIT share the same cores, so a run's commits/s means little without knowing who had them.
 * Elsewhere than Linux nothing is read and nothing is reported. A coordinator running in a JVM of its own
 * ({@link #watch}) counts too: its lanes, event loops and Kafka threads under their kinds, its JIT compiler, GC and
 * other threads apart from the benchmark process's ({@code "coordinator JVM's JIT compiler"}). Another process
 * watched as a whole ({@link #watchAs}, the pylance writers' Python process) counts under one kind of its own.
 * {@link #perCommit} turns a window's CPU into milliseconds per commit: on a machine whose cores are all busy, the
 * sum is what bounds the commits per second both sides can reach.
 */
final class ThreadCpu {
  /** Linux's USER_HZ: {@code /proc} counts CPU time in hundredths of a second on every architecture it runs on. */
  static final int TICKS_PER_SECOND = 100;

  /** Kinds of thread in the order they are reported, each with the name prefixes ({@code comm}, 15 chars) it has. */
  private static final Map<String, List<String>> KINDS = kinds();

  private static Map<String, List<String>> kinds() {
    Map<String, List<String>> kinds = new LinkedHashMap<>();
    kinds.put("commit lanes", List.of("lcc-lane-"));
    kinds.put("HTTP event loops", List.of("vert.x-eventloo"));
    kinds.put("coordinator workers", List.of("vert.x-worker-t", "lcc-worker-"));
    kinds.put("writers", List.of(WriterPool.THREAD_PREFIX));
    kinds.put("writers' HTTP client", List.of("HttpClient-"));
    kinds.put("JIT compiler", List.of("C1 CompilerThre", "C2 CompilerThre"));
    kinds.put("GC", List.of("GC Thread", "G1 "));
    kinds.put("Kafka and events", List.of("kafka-", "lance-commit-"));
    kinds.put("Lance (native)", List.of("tokio-rt-worker", "lance-"));
    return kinds;
  }

  /** Processes besides this one whose threads count ({@link #watch}). */
  private static final Set<Long> WATCHED = ConcurrentHashMap.newKeySet();

  /** Processes whose threads count whole, each under one kind ({@link #watchAs}). */
  private static final Map<Long, String> WATCHED_WHOLE = new ConcurrentHashMap<>();

  private final Map<Integer, Task> threads;

  /**
   * A thread's name, its CPU ticks so far, whether it is a watched process's, and the kind of its process when that
   * process is watched as a whole (else null).
   */
  record Task(String name, long ticks, boolean watched, String processKind) {
    Task(String name, long ticks) {
      this(name, ticks, false, null);
    }

    Task(String name, long ticks, boolean watched) {
      this(name, ticks, watched, null);
    }
  }

  /** Counts the threads of process {@code pid} (the coordinator's own JVM) in every reading until {@link #unwatch}. */
  static void watch(long pid) {
    WATCHED.add(pid);
  }

  /** Counts every thread of process {@code pid} under {@code kind} in every reading until {@link #unwatch}. */
  static void watchAs(long pid, String kind) {
    WATCHED_WHOLE.put(pid, kind);
  }

  static void unwatch(long pid) {
    WATCHED.remove(pid);
    WATCHED_WHOLE.remove(pid);
  }

  private ThreadCpu(Map<Integer, Task> threads) {
    this.threads = threads;
  }

  /** The CPU time of every thread of this process so far, or empty where {@code /proc/self/task} is not there. */
  static Optional<ThreadCpu> now() {
    return now(Path.of("/proc/self/task"));
  }

  static Optional<ThreadCpu> now(Path tasks) {
    Map<Integer, Task> threads = new HashMap<>();
    if (!read(tasks, false, null, threads)) {
      return Optional.empty();
    }
    for (long pid : WATCHED) {
      read(Path.of("/proc", Long.toString(pid), "task"), true, null, threads); // gone: its threads count no more
    }
    WATCHED_WHOLE.forEach((pid, kind) -> read(Path.of("/proc", Long.toString(pid), "task"), true, kind, threads));
    return Optional.of(new ThreadCpu(threads));
  }

  private static boolean read(Path tasks, boolean watched, String processKind, Map<Integer, Task> into) {
    if (!Files.isDirectory(tasks)) {
      return false;
    }
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(tasks)) {
      for (Path dir : dirs) {
        try {
          String stat = Files.readString(dir.resolve("stat"), StandardCharsets.US_ASCII);
          Task task = parse(stat);
          into.put(Integer.parseInt(dir.getFileName().toString()),
              new Task(task.name(), task.ticks(), watched, processKind));
        } catch (NoSuchFileException e) {
          // the thread ended between the listing and the read
        }
      }
    } catch (IOException | RuntimeException e) {
      return false;
    }
    return true;
  }

  /**
   * One {@code stat} line: {@code tid (comm) state ...}, user time the 14th field and system time the 15th. The name
   * sits between the first '(' and the last ')', since a thread's name may itself hold parentheses and spaces.
   */
  static Task parse(String stat) {
    int open = stat.indexOf('(');
    int close = stat.lastIndexOf(')');
    String[] rest = stat.substring(close + 2).trim().split(" ");
    // rest[0] is the state (field 3), so utime (field 14) is rest[11] and stime (field 15) rest[12]
    return new Task(stat.substring(open + 1, close), Long.parseLong(rest[11]) + Long.parseLong(rest[12]));
  }

  /** {@link #kindOf(String)}, a watched process's JIT, GC and other threads told apart from this process's. */
  static String kindOf(Task task) {
    if (task.processKind() != null) {
      return task.processKind();
    }
    String kind = kindOf(task.name());
    return task.watched() && (kind.equals("JIT compiler") || kind.equals("GC") || kind.equals("other"))
        ? "coordinator JVM's " + kind : kind;
  }

  static String kindOf(String threadName) {
    for (Map.Entry<String, List<String>> kind : KINDS.entrySet()) {
      if (kind.getValue().stream().anyMatch(threadName::startsWith)) {
        return kind.getKey();
      }
    }
    return "other";
  }

  /** CPU ticks spent since {@code before}, by kind of thread (threads started since count whole). */
  Map<String, Long> since(ThreadCpu before) {
    Map<String, Long> byKind = new LinkedHashMap<>();
    KINDS.keySet().forEach(kind -> byKind.put(kind, 0L));
    byKind.put("other", 0L);
    WATCHED_WHOLE.values().forEach(kind -> byKind.putIfAbsent(kind, 0L));
    threads.forEach((tid, thread) -> {
      Task earlier = before.threads.get(tid);
      long spent = thread.ticks - (earlier != null && earlier.name.equals(thread.name) ? earlier.ticks : 0);
      byKind.merge(kindOf(thread), spent, Long::sum);
    });
    return byKind;
  }

  /**
   * "CPU in the window: 1.84 of 2 cores busy (commit lanes 21%, ...)" with each kind's share of the cores' time in
   * the window, kinds that spent nothing left out.
   */
  static String describe(Map<String, Long> byKind, double windowSeconds, int cores) {
    double windowTicks = windowSeconds * TICKS_PER_SECOND;
    double available = windowTicks * cores;
    long total = byKind.values().stream().mapToLong(Long::longValue).sum();
    String kinds = byKind.entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .map(e -> String.format(Locale.ROOT, "%s %.0f%%", e.getKey(), 100.0 * e.getValue() / available))
        .collect(Collectors.joining(", "));
    return String.format(Locale.ROOT, "CPU in the window: %.2f of %d cores busy (%s)", total / windowTicks, cores,
        kinds);
  }

  /**
   * "CPU per commit in the window: 31.2 ms over 1941 commits (pylance 21.1, commit lanes 3.0, ...)": each kind's CPU
   * time in the window divided by the commits that finished in it, kinds that spent nothing left out.
   */
  static String perCommit(Map<String, Long> byKind, long commits) {
    if (commits <= 0) {
      return "CPU per commit in the window: no commit finished in it";
    }
    double msPerTick = 1000.0 / TICKS_PER_SECOND;
    long total = byKind.values().stream().mapToLong(Long::longValue).sum();
    String kinds = byKind.entrySet().stream()
        .filter(e -> e.getValue() > 0)
        .sorted(Map.Entry.<String, Long>comparingByValue().reversed())
        .map(e -> String.format(Locale.ROOT, "%s %.2f", e.getKey(), e.getValue() * msPerTick / commits))
        .collect(Collectors.joining(", "));
    return String.format(Locale.ROOT, "CPU per commit in the window: %.2f ms over %d commits (%s)",
        total * msPerTick / commits, commits, kinds);
  }
}
