package dev.lancecommit.coordinator;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CountDownLatch;

/**
 * {@code java -jar coordinator.jar [--port N] [--warehouse URI] [--kafka BOOTSTRAP|embedded|none] [--config FILE]
 * [--<any configuration key> VALUE]}. With no options it serves on port 9101, keeps its warehouse in ./warehouse and
 * starts an embedded Kafka broker.
 */
public final class Main {
  private Main() {}

  public static void main(String[] args) throws Exception {
    CoordinatorConfig config;
    try {
      config = parse(args);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.err.println("Run with --help for the options.");
      System.exit(2);
      return;
    }
    if (config == null) {
      return; // --help
    }
    Coordinator coordinator = Coordinator.start(config);
    System.out.println("Lance commit coordinator serving");
    System.out.println("  REST URL:        " + coordinator.restUrl());
    System.out.println("  warehouse:       " + coordinator.warehouse());
    System.out.println("  Kafka bootstrap: "
        + (coordinator.kafkaBootstrap() == null ? "(events disabled)" : coordinator.kafkaBootstrap()));
    System.out.println("  events topic:    " + coordinator.topic());
    System.out.flush();
    CountDownLatch stopped = new CountDownLatch(1);
    Runtime.getRuntime().addShutdownHook(new Thread(() -> {
      coordinator.close();
      stopped.countDown();
    }, "lcc-shutdown"));
    stopped.await();
  }

  /** The configuration the arguments ask for, or null when they ask for help (which is printed). */
  static CoordinatorConfig parse(String[] args) throws java.io.IOException {
    Map<String, String> options = new LinkedHashMap<>();
    Path configFile = null;
    for (int i = 0; i < args.length; i++) {
      String arg = args[i];
      if (arg.equals("--help") || arg.equals("-h")) {
        System.out.println(usage());
        return null;
      }
      if (!arg.startsWith("--")) {
        throw new IllegalArgumentException("Unexpected argument '" + arg + "'");
      }
      String name = arg.substring(2);
      String value;
      int eq = name.indexOf('=');
      if (eq >= 0) {
        value = name.substring(eq + 1);
        name = name.substring(0, eq);
      } else {
        if (i + 1 >= args.length) {
          throw new IllegalArgumentException("Option --" + name + " needs a value");
        }
        value = args[++i];
      }
      if (name.equals("config")) {
        configFile = Path.of(value);
      } else {
        options.put(name, value);
      }
    }
    CoordinatorConfig.Builder builder = CoordinatorConfig.builder();
    if (configFile != null) {
      builder.load(configFile);
    }
    options.forEach(builder::set);
    return builder.build();
  }

  static String usage() {
    return "Usage: java -jar coordinator/target/coordinator.jar [--port N] [--warehouse URI] "
        + "[--kafka BOOTSTRAP|embedded|none] [--config FILE] [--<key> VALUE]\n\n"
        + "Configuration keys (a --config properties file may set any of them; command-line options win):\n\n"
        + CoordinatorConfig.documentation();
  }
}
