package dev.lancecommit.events.kafka;

/**
 * Main class of the embedded broker's child JVM: runs {@code kafka.Kafka} and exits (through Kafka's own shutdown
 * hook, i.e. a clean broker shutdown) when the parent JVM dies. A shutdown hook in the parent covers normal exits;
 * this covers a parent killed with SIGKILL, which would otherwise leave an orphan broker holding the data dir lock.
 */
public final class KafkaChildMain {
  /** System property carrying the parent's pid. */
  static final String PARENT_PID_PROPERTY = "lancecommit.embedded.kafka.parent";

  private KafkaChildMain() {}

  public static void main(String[] args) {
    String parent = System.getProperty(PARENT_PID_PROPERTY);
    if (parent != null) {
      ProcessHandle.of(Long.parseLong(parent))
          .ifPresentOrElse(
              handle ->
                  handle
                      .onExit()
                      .thenRun(
                          () -> {
                            System.err.println("parent JVM " + parent + " exited; stopping the embedded broker");
                            System.exit(0);
                          }),
              () -> System.exit(1));
    }
    kafka.Kafka.main(args);
  }
}
