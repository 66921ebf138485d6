package dev.lancecommit.coordinator.observe;

import java.math.BigDecimal;
import java.math.RoundingMode;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One log line per commit answer, on logger {@value #LOGGER}: table, version, operation, outcome, duration, group
 * size and trace id, in the message ({@code key=value}) and as SLF4J key-value pairs (fields of the JSON log).
 * Every answer logs at INFO, refusals included (as WARN they would drown real warnings under contention); set the
 * logger's level to WARN to silence it.
 */
public final class CommitLog {
  public static final String LOGGER = "dev.lancecommit.commits";

  private final Logger log;

  public CommitLog() {
    this(LoggerFactory.getLogger(LOGGER));
  }

  CommitLog(Logger log) {
    this.log = log;
  }

  void commit(String table, Long version, String operation, String outcome, long nanos, Integer groupSize,
      String traceId, Throwable failure) {
    if (!log.isInfoEnabled()) {
      return;
    }
    String durationMs = BigDecimal.valueOf(nanos, 6).setScale(3, RoundingMode.HALF_UP).toPlainString();
    String message = "commit table=" + table
        + " version=" + (version == null ? "-" : version)
        + " operation=" + operation
        + " outcome=" + outcome
        + " duration_ms=" + durationMs
        + " group_size=" + (groupSize == null ? "-" : groupSize)
        + " trace_id=" + (traceId == null ? "-" : traceId)
        + (failure == null ? "" : " error=\"" + CommitOutcomes.unwrap(failure).getMessage() + "\"");
    var line = log.atInfo()
        .addKeyValue("table", table)
        .addKeyValue("operation", operation)
        .addKeyValue("outcome", outcome)
        .addKeyValue("duration_ms", durationMs);
    if (version != null) {
      line = line.addKeyValue("version", version);
    }
    if (groupSize != null) {
      line = line.addKeyValue("group_size", groupSize);
    }
    if (traceId != null) {
      line = line.addKeyValue("trace_id", traceId);
    }
    line.log(message);
  }
}
