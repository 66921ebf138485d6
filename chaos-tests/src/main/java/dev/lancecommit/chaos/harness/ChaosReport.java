package dev.lancecommit.chaos.harness;

import java.io.PrintStream;
import java.time.Duration;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * What a chaos run did and found: commits attempted, acknowledged, retried and unknown; faults injected by kind; and
 * the verdict of every check. {@link #passed()} is false when any check failed.
 */
public record ChaosReport(
    ChaosOptions options,
    Duration elapsed,
    boolean publicationOutboxWired,
    Map<OperationType, Long> attemptedByType,
    Map<OperationType, Long> acknowledgedByType,
    long attempted,
    long acknowledged,
    long failedDefinitely,
    long conflictRetries,
    long unknownAnswers,
    long unresolved,
    long throttled,
    Map<String, Long> unknownByAnswer,
    Map<String, Long> rejectedByAnswer,
    Map<String, Long> planFailures,
    Map<String, Long> skippedPlans,
    Map<String, String> meanTimes,
    Map<String, Long> faults,
    List<String> timeline,
    List<CheckResult> checks,
    String workDir) {

  private static final int TIMELINE_ENDS = 15;

  public boolean passed() {
    return checks.stream().allMatch(CheckResult::passed);
  }

  /** The checks that do not depend on Kafka events. */
  public List<CheckResult> storageChecks() {
    return checks.stream().filter(c -> !c.kafka()).toList();
  }

  public List<CheckResult> kafkaChecks() {
    return checks.stream().filter(CheckResult::kafka).toList();
  }

  public long faultCount(String kind) {
    return faults.getOrDefault(kind, 0L);
  }

  public void print(PrintStream out) {
    out.println();
    out.println("=== ChaosHarness report ===");
    out.printf(Locale.ROOT, "run: %s (%.1f s wall, %d cores)%n", options.commandLine(), elapsed.toMillis() / 1000.0,
        Runtime.getRuntime().availableProcessors());
    out.println("event publication: " + (publicationOutboxWired
        ? "outbox + reconciler (publication.* keys present)"
        : "synchronous publish (no publication outbox wired into the coordinator)"));
    out.printf(Locale.ROOT, "commits: %d attempted, %d acknowledged, %d failed definitely (%d of them 409/14 "
            + "conflicts, each retried with a rebuilt transaction), %d unknown answers (same transaction resubmitted), "
            + "%d unresolved, %d throttled%n",
        attempted, acknowledged, failedDefinitely, conflictRetries, unknownAnswers, unresolved, throttled);
    StringBuilder ops = new StringBuilder("  by operation (acknowledged/attempted):");
    for (OperationType type : OperationType.values()) {
      long sent = attemptedByType.getOrDefault(type, 0L);
      if (sent > 0) {
        ops.append(' ').append(type.lanceName()).append(' ').append(acknowledgedByType.getOrDefault(type, 0L))
            .append('/').append(sent);
      }
    }
    out.println(ops);
    out.printf(Locale.ROOT, "  throughput: %.2f acknowledged commits/s over the %d s of writing; mean times %s%n",
        (acknowledged - options.tables()) / (double) options.seconds(), options.seconds(), meanTimes);
    if (!unknownByAnswer.isEmpty()) {
      out.println("  unknown answers: " + unknownByAnswer);
    }
    if (!rejectedByAnswer.isEmpty()) {
      out.println("  other definite failures:");
      rejectedByAnswer.forEach((k, v) -> out.println("    x" + v + " " + k));
    }
    if (!planFailures.isEmpty()) {
      out.println("  transactions Lance could not build (not commits):");
      planFailures.forEach((k, v) -> out.println("    x" + v + " " + k));
    }
    if (!skippedPlans.isEmpty()) {
      out.println("  operations skipped (nothing to do at that version): " + skippedPlans);
    }
    out.println("faults injected: " + (faults.isEmpty() ? "none" : ""));
    faults.forEach((k, v) -> out.println("  " + k + ": " + v));
    if (!timeline.isEmpty()) {
      out.println("fault timeline:");
      if (timeline.size() <= 2 * TIMELINE_ENDS) {
        timeline.forEach(line -> out.println("  " + line));
      } else {
        timeline.subList(0, TIMELINE_ENDS).forEach(line -> out.println("  " + line));
        out.println("  ... " + (timeline.size() - 2 * TIMELINE_ENDS) + " more ...");
        timeline.subList(timeline.size() - TIMELINE_ENDS, timeline.size()).forEach(line -> out.println("  " + line));
      }
    }
    out.println("checks:");
    for (CheckResult check : checks) {
      out.println("  " + (check.passed() ? "PASS" : "FAIL") + "  " + check.name() + ": " + check.detail());
    }
    out.println("result: " + (passed() ? "PASS" : "FAIL") + "   (coordinator log, Kafka data and a local warehouse in "
        + workDir + (passed() ? "; a temporary one is removed after a passing run" : "") + ")");
  }
}
