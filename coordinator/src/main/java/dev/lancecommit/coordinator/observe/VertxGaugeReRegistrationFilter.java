package dev.lancecommit.coordinator.observe;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import org.slf4j.Marker;

/**
 * Drops Micrometer's "This Gauge has been already registered" warning for Vert.x's own meters, and only those.
 *
 * <p>Vert.x's Micrometer metrics (4.5) register a gauge such as {@code vertx.http.server.active.requests} again on
 * every request and keep the value in a map of their own keyed by the meter id, so the registry's gauge and the value
 * Vert.x updates stay one (vertx-micrometer-metrics issue 259). Micrometer 1.14+ warns at the second registration,
 * which every coordinator start printed although nothing is lost. A re-registered gauge of the coordinator's own
 * ({@code lance.*}) still warns: that one would be a bug.
 */
public final class VertxGaugeReRegistrationFilter extends TurboFilter {
  static final String LOGGER = "io.micrometer.core.instrument.MeterRegistry";
  private static final String VERTX_GAUGE = "This Gauge has been already registered (MeterId{name='vertx.";

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params,
      Throwable t) {
    if (format != null && level == Level.WARN && LOGGER.equals(logger.getName())
        && format.startsWith(VERTX_GAUGE)) {
      return FilterReply.DENY;
    }
    return FilterReply.NEUTRAL;
  }
}
