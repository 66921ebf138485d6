package dev.lancecommit.coordinator.observe;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import java.time.Duration;
import java.util.Locale;
import java.util.Map;
import java.util.OptionalInt;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigException;

/**
 * Settings of metrics, probes and logs, with the configuration keys that set them. Tracing has no key of its own: it
 * follows the standard OpenTelemetry settings ({@code OTEL_EXPORTER_OTLP_ENDPOINT} and friends), see
 * {@link dev.lancecommit.events.tracing.Telemetry}.
 *
 * @param metricsEnabled serve {@code GET /metrics}
 * @param metricsPort a port of its own for {@code /metrics} (0 picks a free one), or empty to serve it on the REST port
 * @param perTable add a {@code table} label to the per-commit families
 * @param logFormat {@code text} or {@code json}
 * @param storeProbeInterval how often readiness reads the warehouse store
 */
public record ObservabilityConfig(boolean metricsEnabled, OptionalInt metricsPort, boolean perTable, String logFormat,
    Duration storeProbeInterval) {
  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final String TEXT = "text";
  public static final String JSON = "json";

  public static final ConfigKey<Boolean> METRICS_ENABLED = KEYS.bool("metrics.enabled", true,
      "Serve GET /metrics in the Prometheus text format (no credentials needed). false registers no meters.");
  public static final ConfigKey<String> METRICS_PORT = KEYS.string("metrics.port", "",
      ConfigDef.LambdaValidator.with((name, value) -> {
        String text = ((String) value).trim();
        if (!text.isEmpty()) {
          try {
            int port = Integer.parseInt(text);
            if (port < 0 || port > 65535) {
              throw new ConfigException(name, value, "not a port (0..65535)");
            }
          } catch (NumberFormatException e) {
            throw new ConfigException(name, value, "not a port (0..65535)");
          }
        }
      }, () -> "empty or a port (0..65535)"),
      "Serve /metrics on this port instead of the REST port (bound on 'host'; 0 picks a free port, printed at "
          + "start). Empty: on the REST port.");
  public static final ConfigKey<Boolean> METRICS_PER_TABLE = KEYS.bool("metrics.per-table", false,
      "Add a 'table' label to lance_commit_requests_total, lance_commit_duration_seconds and "
          + "lance_commit_conflicts_total. One series per table and outcome: keep it off with many tables.");
  public static final ConfigKey<String> LOG_FORMAT = KEYS.string("log.format", TEXT, ConfigKeys.oneOf(TEXT, JSON),
      "text, or json: one JSON object per line (logback's JsonEncoder; the commit log's fields in kvpList). Applies "
          + "to the process's whole log unless -Dlogback.configurationFile names another configuration.");
  public static final ConfigKey<Duration> READINESS_STORE_PROBE_INTERVAL_MS = KEYS.millis(
      "readiness.store-probe-interval.ms", 10_000, atLeast(1L),
      "How often GET /readyz's store check reads the warehouse (a HEAD of the catalog's probe key).");

  public ObservabilityConfig {
    logFormat = logFormat.trim().toLowerCase(Locale.ROOT);
  }

  /** The keys, for {@code CoordinatorConfig}. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  public static ObservabilityConfig from(Config values) {
    String port = values.get(METRICS_PORT).trim();
    return new ObservabilityConfig(values.get(METRICS_ENABLED),
        port.isEmpty() ? OptionalInt.empty() : OptionalInt.of(Integer.parseInt(port)),
        values.get(METRICS_PER_TABLE), values.get(LOG_FORMAT), values.get(READINESS_STORE_PROBE_INTERVAL_MS));
  }

  /** Defaults: metrics on the REST port, no per-table labels, text logs. */
  public static ObservabilityConfig defaults() {
    return from(KEYS.parse(Map.of()));
  }
}
