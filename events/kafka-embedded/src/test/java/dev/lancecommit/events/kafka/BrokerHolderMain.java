package dev.lancecommit.events.kafka;

import java.nio.file.Path;

/** Test helper JVM: starts an embedded broker on the data dir given as argument, prints its pid and waits forever. */
public final class BrokerHolderMain {
  private BrokerHolderMain() {}

  public static void main(String[] args) throws InterruptedException {
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.builder().dataDir(Path.of(args[0])).build().start();
    System.out.println("BROKER_PID=" + broker.pid().orElseThrow());
    System.out.flush();
    Thread.sleep(Long.MAX_VALUE);
  }
}
