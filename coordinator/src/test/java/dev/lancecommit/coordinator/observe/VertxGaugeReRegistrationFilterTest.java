package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.core.read.ListAppender;
import java.net.URL;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The shipped logging configuration (and the tests') drops Vert.x's gauge re-registration warning and no other. */
class VertxGaugeReRegistrationFilterTest {
  private static final String SUFFIX =
      ", tags=[tag(method=POST)]}), the registration will be ignored. Note that subsequent logs will be logged at "
          + "debug level.";

  @ParameterizedTest
  @ValueSource(strings = {"logback.xml", "logback-test.xml"})
  void dropsVertxGaugeWarningsOnly(String configuration) throws Exception {
    LoggerContext context = new LoggerContext();
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    URL resource = getClass().getClassLoader().getResource(configuration);
    assertThat(resource).as(configuration).isNotNull();
    configurator.doConfigure(resource);
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.setContext(context);
    events.start();
    Logger micrometer = context.getLogger(VertxGaugeReRegistrationFilter.LOGGER);
    context.getLogger(Logger.ROOT_LOGGER_NAME).addAppender(events);

    micrometer.warn("This Gauge has been already registered (MeterId{name='vertx.http.server.active.requests'"
        + SUFFIX);
    micrometer.warn("This Gauge has been already registered (MeterId{name='lance.commit.lane.queued'" + SUFFIX);
    micrometer.warn("A MeterFilter is being configured after a Meter has been registered to this registry.");
    context.getLogger("dev.lancecommit.Other")
        .warn("This Gauge has been already registered (MeterId{name='vertx.x'" + SUFFIX);

    assertThat(events.list).filteredOn(e -> e.getLoggerName().equals(VertxGaugeReRegistrationFilter.LOGGER))
        .extracting(ILoggingEvent::getFormattedMessage)
        .noneMatch(m -> m.contains("name='vertx."))
        .anyMatch(m -> m.contains("name='lance.commit.lane.queued'"))
        .anyMatch(m -> m.startsWith("A MeterFilter"));
    assertThat(events.list).filteredOn(e -> e.getLoggerName().equals("dev.lancecommit.Other")).hasSize(1);
    context.stop();
  }
}
