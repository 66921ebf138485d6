package dev.lancecommit.coordinator;

import dev.lancecommit.config.ConfigCommandLine;
import java.io.PrintStream;
import dev.lancecommit.coordinator.observe.LogFormat;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar coordinator.jar [--port N] [--warehouse URI] [--kafka BOOTSTRAP|embedded|none] [--config FILE]
 * [--<any configuration key> VALUE]}. With no options it serves on port 9101, keeps its warehouse in ./warehouse and
 * starts an embedded Kafka broker.
 */
public final class Main {
  static final String DESCRIPTION = "The Lance commit coordinator. With no options it serves on port 9101, keeps "
      + "its warehouse in ./warehouse and starts an embedded Kafka broker; any configuration key below can be given "
      + "as --<key> VALUE (e.g. --port 0 --warehouse s3://bucket/wh --kafka host:9092).";

  private Main() {}

  public static void main(String[] args) throws Exception {
    CoordinatorConfig config;
    try {
      config = parse(args, System.out);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println("Run with --help for the options.");
      System.exit(2);
      return;
    }
    if (config == null) {
      return; // --help
    }
    LogFormat.apply(config.observabilityConfig().logFormat());
    Coordinator coordinator = Coordinator.start(config);
    System.out.println("Lance commit coordinator serving");
    System.out.println("  REST URL:        " + coordinator.restUrl());
    System.out.println("  warehouse:       " + coordinator.warehouse());
    System.out.println("  Kafka bootstrap: "
        + (coordinator.kafkaBootstrap() == null ? "(events disabled)" : coordinator.kafkaBootstrap()));
    System.out.println("  events topic:    " + coordinator.topic());
    coordinator.metricsUrl().ifPresent(url -> System.out.println("  metrics:         " + url));
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      coordinator.close();
      stopped.countDown();
    }, "lcc-shutdown"));
    stopped.await();
  }

  /**
   * The configuration the arguments ask for ({@code --config FILE} first, options over it), or null when they ask for
   * help, which is printed to {@code out}.
   *
   * @throws IllegalArgumentException naming the option or key that is wrong
   */
  static CoordinatorConfig parse(String[] args, PrintStream out) {
    ConfigCommandLine commandLine = commandLine();
    if (!commandLine.parse(out, args)) {
      return null;
    }
    CoordinatorConfig.Builder builder = CoordinatorConfig.builder();
    commandLine.values().forEach(builder::set);
    return builder.build();
  }

  static ConfigCommandLine commandLine() {
    return new ConfigCommandLine("java -jar coordinator/target/coordinator.jar", DESCRIPTION, null,
        CoordinatorConfig.keys());
  }
}
