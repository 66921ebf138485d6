package dev.lancecommit.chaos.harness;

import java.util.ArrayList;
import java.util.Collection;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/**
 * The harness's own record of every transaction a writer sent and what the coordinator answered, by transaction
 * uuid. The checks compare the tables' histories against it. Thread-safe.
 */
public final class Ledger {

  /** The final word on one transaction. */
  public enum Status {
    /** Sent, no final answer yet. */
    PENDING,
    /** 200: committed as {@link Entry#version()}. */
    ACKNOWLEDGED,
    /** A definite "not committed" (409, 400, 404...). */
    FAILED,
    /** Only unknown outcomes until the writer gave up: it may or may not have landed. */
    UNRESOLVED
  }

  /** One transaction. Mutable status, guarded by the entry. */
  public static final class Entry {
    private final PlannedCommit commit;
    private Status status = Status.PENDING;
    private long version = -1;
    private String answer = "";

    Entry(PlannedCommit commit) {
      this.commit = commit;
    }

    public synchronized Status status() {
      return status;
    }

    public synchronized long version() {
      return version;
    }

    public synchronized String answer() {
      return answer;
    }

    public PlannedCommit commit() {
      return commit;
    }

    synchronized void settle(Status newStatus, long newVersion, String newAnswer) {
      status = newStatus;
      version = newVersion;
      answer = newAnswer;
    }
  }

  private final Map<String, Entry> entries = new ConcurrentHashMap<>();
  private final AtomicLong conflictRetries = new AtomicLong();
  private final AtomicLong unknownAnswers = new AtomicLong();
  private final AtomicLong throttled = new AtomicLong();
  private final AtomicLong describeFailures = new AtomicLong();
  private final Map<String, AtomicLong> unknownByAnswer = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> rejectedByAnswer = new ConcurrentHashMap<>();
  private final Map<String, AtomicLong> planFailures = new ConcurrentHashMap<>();
  private final Map<OperationType, AtomicLong> skippedPlans = new ConcurrentHashMap<>();
  private final Map<OperationType, AtomicLong> planNanos = new ConcurrentHashMap<>();
  private final Map<OperationType, AtomicLong> plans = new ConcurrentHashMap<>();
  private final Map<OperationType, AtomicLong> commitNanos = new ConcurrentHashMap<>();

  void sent(PlannedCommit commit) {
    entries.putIfAbsent(commit.uuid(), new Entry(commit));
  }

  void acknowledged(PlannedCommit commit, long version) {
    entries.get(commit.uuid()).settle(Status.ACKNOWLEDGED, version, "200");
  }

  void failed(PlannedCommit commit, CommitOutcome outcome) {
    entries.get(commit.uuid()).settle(Status.FAILED, -1, outcome.label());
    if (outcome.kind() == CommitOutcome.Kind.RETRYABLE_CONFLICT) {
      conflictRetries.incrementAndGet();
    } else {
      rejectedByAnswer.computeIfAbsent(outcome.label() + " " + shorten(outcome.detail()), k -> new AtomicLong())
          .incrementAndGet();
    }
  }

  void unknown(CommitOutcome outcome) {
    unknownAnswers.incrementAndGet();
    String label = outcome.status() < 0 ? "no answer" : outcome.label();
    unknownByAnswer.computeIfAbsent(label, k -> new AtomicLong()).incrementAndGet();
  }

  void throttled() {
    throttled.incrementAndGet();
  }

  void unresolved(PlannedCommit commit) {
    entries.get(commit.uuid()).settle(Status.UNRESOLVED, -1, "gave up while unknown");
  }

  void describeFailed() {
    describeFailures.incrementAndGet();
  }

  void planFailed(OperationType type, Exception e) {
    planFailures.computeIfAbsent(type.lanceName() + ": " + shorten(String.valueOf(e.getMessage())),
        k -> new AtomicLong()).incrementAndGet();
  }

  void planSkipped(OperationType type) {
    skippedPlans.computeIfAbsent(type, k -> new AtomicLong()).incrementAndGet();
  }

  /** Time Lance spent building one transaction (data, deletion, compaction or index files). */
  void planTime(OperationType type, long nanos) {
    planNanos.computeIfAbsent(type, k -> new AtomicLong()).addAndGet(nanos);
    plans.computeIfAbsent(type, k -> new AtomicLong()).incrementAndGet();
  }

  /** Time from the first CommitTable call of a transaction to its final answer. */
  void commitTime(OperationType type, long nanos) {
    commitNanos.computeIfAbsent(type, k -> new AtomicLong()).addAndGet(nanos);
  }

  /** Per operation: mean milliseconds to build a transaction, and to get it a final answer. */
  public Map<String, String> meanTimes() {
    Map<String, String> out = new TreeMap<>();
    for (OperationType type : OperationType.values()) {
      long built = plans.getOrDefault(type, new AtomicLong()).get();
      long sent = attemptedByType().getOrDefault(type, 0L);
      if (type == OperationType.CREATE || (built == 0 && sent == 0)) {
        continue;
      }
      long build = built == 0 ? 0 : planNanos.get(type).get() / built / 1_000_000;
      long commit = sent == 0 ? 0 : commitNanos.getOrDefault(type, new AtomicLong()).get() / sent / 1_000_000;
      out.put(type.lanceName(), "build " + build + " ms, commit " + commit + " ms");
    }
    return out;
  }

  public Entry entry(String uuid) {
    return entries.get(uuid);
  }

  public Collection<Entry> entries() {
    return List.copyOf(entries.values());
  }

  public List<Entry> entriesOf(ChaosTable table) {
    List<Entry> out = new ArrayList<>();
    for (Entry e : entries.values()) {
      if (e.commit().table() == table) {
        out.add(e);
      }
    }
    return out;
  }

  /** Transactions sent, by operation. */
  public Map<OperationType, Long> attemptedByType() {
    return countByType(null);
  }

  /** Transactions acknowledged, by operation. */
  public Map<OperationType, Long> acknowledgedByType() {
    return countByType(Status.ACKNOWLEDGED);
  }

  public long count(Status status) {
    return entries.values().stream().filter(e -> e.status() == status).count();
  }

  public long attempted() {
    return entries.size();
  }

  /** 409/14 answers, each followed by a rebuilt transaction. */
  public long conflictRetries() {
    return conflictRetries.get();
  }

  /** Answers that left the outcome unknown (each followed by resubmitting the same transaction). */
  public long unknownAnswers() {
    return unknownAnswers.get();
  }

  public long throttledAnswers() {
    return throttled.get();
  }

  public long describeFailures() {
    return describeFailures.get();
  }

  public Map<String, Long> unknownByAnswer() {
    return snapshot(unknownByAnswer);
  }

  public Map<String, Long> rejectedByAnswer() {
    return snapshot(rejectedByAnswer);
  }

  public Map<String, Long> planFailures() {
    return snapshot(planFailures);
  }

  public Map<String, Long> skippedPlans() {
    Map<String, Long> out = new TreeMap<>();
    skippedPlans.forEach((k, v) -> out.put(k.lanceName(), v.get()));
    return out;
  }

  private Map<OperationType, Long> countByType(Status status) {
    Map<OperationType, Long> out = new EnumMap<>(OperationType.class);
    for (Entry e : entries.values()) {
      if (status == null || e.status() == status) {
        out.merge(e.commit().type(), 1L, Long::sum);
      }
    }
    return out;
  }

  private static Map<String, Long> snapshot(Map<String, AtomicLong> counters) {
    Map<String, Long> out = new TreeMap<>();
    counters.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  private static String shorten(String text) {
    String oneLine = text.replaceAll("\\s+", " ");
    return oneLine.length() > 160 ? oneLine.substring(0, 160) + "..." : oneLine;
  }
}
