package dev.lancecommit.coordinator.observe;

import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.joran.JoranConfigurator;
import ch.qos.logback.core.joran.spi.JoranException;
import java.net.URL;
import org.slf4j.ILoggerFactory;
import org.slf4j.LoggerFactory;

/**
 * Switches the process's log to JSON lines ({@code log.format=json}) by loading {@value #JSON_CONFIGURATION} in place
 * of logback.xml. A configuration named with {@code -Dlogback.configurationFile} is the operator's and is left alone.
 */
public final class LogFormat {
  static final String JSON_CONFIGURATION = "/lancecommit-logback-json.xml";

  private LogFormat() {}

  /** Applies {@code format} ({@code text} changes nothing); returns whether the configuration changed. */
  public static boolean apply(String format) {
    if (!ObservabilityConfig.JSON.equals(format) || System.getProperty("logback.configurationFile") != null) {
      return false;
    }
    ILoggerFactory factory = LoggerFactory.getILoggerFactory();
    if (!(factory instanceof LoggerContext context)) {
      return false;
    }
    configureJson(context);
    return true;
  }

  /** Replaces {@code context}'s configuration with the JSON one. */
  static void configureJson(LoggerContext context) {
    URL json = LogFormat.class.getResource(JSON_CONFIGURATION);
    JoranConfigurator configurator = new JoranConfigurator();
    configurator.setContext(context);
    context.reset();
    try {
      configurator.doConfigure(json);
    } catch (JoranException e) {
      throw new IllegalStateException("Could not switch the log to JSON: " + e.getMessage(), e);
    }
  }
}
