package dev.lancecommit.events.consumer;

import dev.lancecommit.config.ConfigCommandLine;
import dev.lancecommit.config.ConfigKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.slf4j.LoggerFactory;

/** What the consumer commands share: logging set-up, the consumer flags, and running until the JVM is stopped. */
public final class ConsumerCommands {
  /** Classpath resource with the commands' logging configuration (INFO, Kafka at WARN). */
  public static final String LOGGING_RESOURCE = "lancecommit-consumers-logback.xml";

  private ConsumerCommands() {}

  /** Points logback at {@link #LOGGING_RESOURCE} unless the user chose a configuration; call before any logger. */
  public static void initLogging() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", LOGGING_RESOURCE);
    }
  }

  /**
   * The command line of a consumer command: every key of {@link ConsumerOptions#keys()} and of {@code commandKeys}
   * as {@code --<key> VALUE}, the short names {@code --bootstrap}, {@code --group} and {@code --gap-timeout-ms},
   * {@code --set key=value} for any key, {@code --config FILE}, and {@code --help} listing them all.
   *
   * @param flags picocli-annotated object with the command's options that are not keys, or null
   */
  public static ConfigCommandLine commandLine(String name, String description, Object flags,
      ConfigKeys commandKeys) {
    return new ConfigCommandLine(name, description, flags, ConfigKeys.of(ConsumerOptions.keys(), commandKeys))
        .alias("--bootstrap", ConsumerOptions.BOOTSTRAP_SERVERS, "HOST:PORT")
        .alias("--group", ConsumerOptions.GROUP_ID, "GROUP")
        .alias("--gap-timeout-ms", ConsumerOptions.GAP_TIMEOUT_MS, "MS")
        .withSetOption();
  }

  /** The consumer options a parsed command line asks for; {@code defaultGroup} unless a group was given. */
  public static ConsumerOptions options(ConfigCommandLine commandLine, String defaultGroup) {
    Map<String, String> values = commandLine.values(ConsumerOptions.keys());
    values.putIfAbsent(ConsumerOptions.GROUP_ID.name(), defaultGroup);
    return ConsumerOptions.fromConfig(values);
  }

  /**
   * Runs {@code consumer} on the calling thread until the JVM is asked to stop (SIGTERM, Ctrl-C), then closes it and
   * {@code resources} in reverse order. Returns 0 after a clean stop, 1 if the consumer failed.
   */
  public static int runUntilStopped(CommitEventConsumer consumer, AutoCloseable... resources) {
    List<AutoCloseable> toClose = new ArrayList<>(List.of(resources));
    CountDownLatch closed = new CountDownLatch(1);
    Thread hook = new Thread(() -> {
      consumer.close();
      try {
        // let the main thread close the stores before the JVM halts
        closed.await(30, TimeUnit.SECONDS);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, "consumer-shutdown");
    Runtime.getRuntime().addShutdownHook(hook);
    try {
      consumer.run();
    } finally {
      for (int i = toClose.size() - 1; i >= 0; i--) {
        try {
          toClose.get(i).close();
        } catch (Exception e) {
          LoggerFactory.getLogger(ConsumerCommands.class).warn("closing {}: {}", toClose.get(i), e.toString());
        }
      }
      closed.countDown();
    }
    try {
      Runtime.getRuntime().removeShutdownHook(hook);
    } catch (IllegalStateException e) {
      // already shutting down
    }
    return consumer.failure() == null ? 0 : 1;
  }
}
