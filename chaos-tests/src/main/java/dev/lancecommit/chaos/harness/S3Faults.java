package dev.lancecommit.chaos.harness;

import java.util.Locale;

/**
 * What the S3 fault proxy does to each request while these settings are active. Probabilities are per request and
 * independent.
 *
 * @param errorRate answer 503 SlowDown or 500 InternalError without forwarding (nothing lands)
 * @param latencyRate forward after a pause of up to {@code maxLatencyMillis}
 * @param maxLatencyMillis longest added latency
 * @param stallRate hold the request for {@code stallMillis} (longer than the coordinator's attempt timeout) and
 *     then forward it anyway: the client has given up, the write may still land later
 * @param stallMillis how long a stalled request is held
 * @param dropAfterWriteRate for a PUT with {@code If-None-Match}: forward it, and when it succeeded, reset the
 *     client connection instead of answering (the write landed, the client cannot know)
 */
public record S3Faults(double errorRate, double latencyRate, long maxLatencyMillis, double stallRate,
    long stallMillis, double dropAfterWriteRate) {

  public static final S3Faults NONE = new S3Faults(0, 0, 0, 0, 0, 0);

  public S3Faults {
    checkRate(errorRate, "errorRate");
    checkRate(latencyRate, "latencyRate");
    checkRate(stallRate, "stallRate");
    checkRate(dropAfterWriteRate, "dropAfterWriteRate");
    if (maxLatencyMillis < 0 || stallMillis < 0) {
      throw new IllegalArgumentException("latencies must not be negative");
    }
  }

  public boolean active() {
    return errorRate > 0 || latencyRate > 0 || stallRate > 0 || dropAfterWriteRate > 0;
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT, "5xx %.0f%%, latency %.0f%% (<=%d ms), stall %.0f%% (%d ms), drop-after-write "
            + "%.0f%%", errorRate * 100, latencyRate * 100, maxLatencyMillis, stallRate * 100, stallMillis,
        dropAfterWriteRate * 100);
  }

  private static void checkRate(double rate, String name) {
    if (!(rate >= 0 && rate <= 1)) {
      throw new IllegalArgumentException(name + " must be within [0, 1], got " + rate);
    }
  }
}
