package dev.lancecommit.chaos.bench;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/** What one benchmark run measured, merged over its writers. */
final class RunResult {
  private final String name;
  private final List<Long> latenciesNanos = new ArrayList<>();
  private final Map<String, Integer> failureKinds = new TreeMap<>();
  private long elapsedNanos;
  private long windowNanos;
  private int inWindow;
  private long rowsCommitted;
  private int failed;
  private int retries = -1;
  private String verification = "not checked";
  private boolean verified;
  private long groupSizeSum;
  private int groupSizeCount;
  private int groupSizeMax;

  RunResult(String name) {
    this.name = name;
  }

  /** A commit acknowledged after {@code latencyNanos}; {@code inWindow} if it finished before the deadline. */
  synchronized void committed(long latencyNanos, int rows, boolean withinWindow) {
    latenciesNanos.add(latencyNanos);
    rowsCommitted += rows;
    if (withinWindow) {
      inWindow++;
    }
  }

  synchronized void failed(Throwable error) {
    failed++;
    String kind = error.getClass().getSimpleName() + ": " + firstLine(error.getMessage());
    failureKinds.merge(kind.length() > 160 ? kind.substring(0, 160) : kind, 1, Integer::sum);
  }

  synchronized void retried() {
    retries = Math.max(retries, 0) + 1;
  }

  /** Retries are counted (0 so far) rather than unknowable for this run. */
  synchronized void countsRetries() {
    retries = Math.max(retries, 0);
  }

  /** The measuring window and the wall time until the last writer finished its last commit. */
  synchronized void elapsed(long window, long total) {
    windowNanos = window;
    elapsedNanos = total;
  }

  synchronized void verification(String text) {
    verification = text;
  }

  /** The check after the run: {@code ok} when the table holds exactly what was acknowledged. */
  synchronized void verification(boolean ok, String text) {
    verified = ok;
    verification = (ok ? "ok" : "MISMATCH") + ": " + text;
  }

  synchronized boolean verified() {
    return verified;
  }

  /** The {@code group_size} a commit answer carried (group commit); answers without it are not counted. */
  synchronized void groupSize(int size) {
    groupSizeSum += size;
    groupSizeCount++;
    groupSizeMax = Math.max(groupSizeMax, size);
  }

  /** Mean group size over the answers that carried one, or NaN when none did. */
  synchronized double groupSizeMean() {
    return groupSizeCount == 0 ? Double.NaN : (double) groupSizeSum / groupSizeCount;
  }

  synchronized int groupSizeMax() {
    return groupSizeMax;
  }

  /** Merges another run's measurements into this one (the writers of several processes). */
  synchronized void addLatencies(List<Long> nanos, int inWindowCount, long rows) {
    latenciesNanos.addAll(nanos);
    inWindow += inWindowCount;
    rowsCommitted += rows;
  }

  synchronized void failures(Map<String, Integer> kinds) {
    kinds.forEach((kind, count) -> {
      failed += count;
      failureKinds.merge(kind.length() > 160 ? kind.substring(0, 160) : kind, count, Integer::sum);
    });
  }

  synchronized void retries(int count) {
    retries = Math.max(retries, 0) + count;
  }

  String name() {
    return name;
  }

  synchronized int commits() {
    return latenciesNanos.size();
  }

  /** Commits that finished inside the window. */
  synchronized int commitsInWindow() {
    return inWindow;
  }

  synchronized long rowsCommitted() {
    return rowsCommitted;
  }

  synchronized int failedCommits() {
    return failed;
  }

  synchronized String retriesText() {
    return retries < 0 ? "n/a (inside Lance)" : Integer.toString(retries);
  }

  /** Retries counted, or -1 when they happen inside Lance where they cannot be counted. */
  synchronized int retryCount() {
    return retries;
  }

  /** Commits finished inside the window, per second of window. */
  synchronized double commitsPerSecond() {
    return windowNanos == 0 ? 0 : inWindow / (windowNanos / 1e9);
  }

  /** All commits (including those still running at the deadline) per second of wall time. */
  synchronized double commitsPerSecondWithDrain() {
    return elapsedNanos == 0 ? 0 : latenciesNanos.size() / (elapsedNanos / 1e9);
  }

  synchronized double drainSeconds() {
    return Math.max(0, (elapsedNanos - windowNanos) / 1e9);
  }

  synchronized double percentileMillis(double p) {
    if (latenciesNanos.isEmpty()) {
      return Double.NaN;
    }
    List<Long> sorted = new ArrayList<>(latenciesNanos);
    sorted.sort(null);
    int index = (int) Math.ceil(p / 100.0 * sorted.size()) - 1;
    return sorted.get(Math.max(0, Math.min(index, sorted.size() - 1))) / 1e6;
  }

  synchronized Map<String, Integer> failureKinds() {
    return new TreeMap<>(failureKinds);
  }

  synchronized String verification() {
    return verification;
  }

  private static String firstLine(String message) {
    if (message == null) {
      return "";
    }
    int nl = message.indexOf('\n');
    return nl < 0 ? message : message.substring(0, nl);
  }
}
