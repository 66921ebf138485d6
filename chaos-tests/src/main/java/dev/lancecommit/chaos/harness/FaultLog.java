package dev.lancecommit.chaos.harness;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;

/** Counts of injected faults by name, and a timeline of fault episodes relative to the run's start. Thread-safe. */
public final class FaultLog {
  public static final String COORDINATOR_KILL = "coordinator kill -9";
  public static final String COORDINATOR_RESTART = "coordinator restart";
  public static final String INSTANCE_KILL = "instance kill -9";
  public static final String INSTANCE_RESTART = "instance restart";
  public static final String INSTANCE_PAUSE = "instance SIGSTOP";
  public static final String INSTANCE_RESUME = "instance SIGCONT";
  public static final String KAFKA_STOP = "kafka stop";
  public static final String KAFKA_START = "kafka start";
  public static final String S3_WINDOW = "s3 fault window";
  public static final String S3_5XX = "s3 5xx answered";
  public static final String S3_LATENCY = "s3 latency added";
  public static final String S3_STALL = "s3 request stalled past timeout";
  public static final String S3_DROP_AFTER_WRITE = "s3 response dropped after conditional write landed";

  private final long startNanos = System.nanoTime();
  private final Map<String, AtomicLong> counts = new ConcurrentHashMap<>();
  private final List<String> timeline = new ArrayList<>();

  public void count(String kind) {
    counts.computeIfAbsent(kind, k -> new AtomicLong()).incrementAndGet();
  }

  /** Counts {@code kind} and notes it on the timeline with {@code detail}. */
  public void event(String kind, String detail) {
    count(kind);
    note(kind + (detail == null || detail.isEmpty() ? "" : " (" + detail + ")"));
  }

  public void note(String text) {
    String line = String.format(java.util.Locale.ROOT, "%7.1fs %s", elapsed().toMillis() / 1000.0, text);
    synchronized (timeline) {
      timeline.add(line);
    }
  }

  public Duration elapsed() {
    return Duration.ofNanos(System.nanoTime() - startNanos);
  }

  public long countOf(String kind) {
    AtomicLong value = counts.get(kind);
    return value == null ? 0 : value.get();
  }

  public Map<String, Long> counts() {
    Map<String, Long> out = new TreeMap<>();
    counts.forEach((k, v) -> out.put(k, v.get()));
    return out;
  }

  public List<String> timeline() {
    synchronized (timeline) {
      return List.copyOf(timeline);
    }
  }
}
