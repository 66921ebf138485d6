package dev.lancecommit.events.consumer;

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

  /** Flags every consumer command accepts, mapped onto {@link ConsumerOptions}. */
  public static final List<String> CONSUMER_FLAGS =
      List.of("bootstrap", "topic", "group", "checkpoints", "gap-timeout-ms", "set");

  private ConsumerCommands() {}

  /** Points logback at {@link #LOGGING_RESOURCE} unless the user chose a configuration; call before any logger. */
  public static void initLogging() {
    if (System.getProperty("logback.configurationFile") == null) {
      System.setProperty("logback.configurationFile", LOGGING_RESOURCE);
    }
  }

  /**
   * Consumer options from {@code --bootstrap --topic --group --gap-timeout-ms} and {@code --set key=value} (any key
   * of {@link ConsumerOptions}, e.g. {@code --set consumer.security.protocol=SSL}).
   */
  public static ConsumerOptions options(CommandArgs args, String defaultGroup) {
    Map<String, String> config = new java.util.LinkedHashMap<>(args.pairs("set"));
    config.put(ConsumerOptions.BOOTSTRAP_SERVERS, args.require("bootstrap"));
    config.put(ConsumerOptions.GROUP_ID, args.get("group", defaultGroup));
    args.get("topic").ifPresent(topic -> config.put(ConsumerOptions.TOPIC, topic));
    args.get("gap-timeout-ms").ifPresent(ms -> config.put(ConsumerOptions.GAP_TIMEOUT_MS, ms));
    return ConsumerOptions.fromConfig(config);
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
