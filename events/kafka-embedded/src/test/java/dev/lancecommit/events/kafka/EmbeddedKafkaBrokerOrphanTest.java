package dev.lancecommit.events.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.BufferedReader;
import java.io.File;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The broker child must not outlive a parent JVM that is killed without running its shutdown hooks. */
class EmbeddedKafkaBrokerOrphanTest {
  @TempDir Path dataDir;

  @Test
  void brokerStopsWhenParentIsKilled() throws Exception {
    String classPath =
        ChildClasspath.resolve(System.getProperty("java.class.path")).stream()
            .map(Path::toString)
            .collect(Collectors.joining(File.pathSeparator));
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-cp");
    command.add(classPath);
    command.add(BrokerHolderMain.class.getName());
    command.add(dataDir.toString());
    Process parent = new ProcessBuilder(command).redirectErrorStream(true).start();
    Optional<ProcessHandle> broker = Optional.empty();
    try {
      long brokerPid = readBrokerPid(parent).get(120, TimeUnit.SECONDS);
      broker = ProcessHandle.of(brokerPid);
      assertThat(broker).as("broker child running").isPresent();

      parent.destroyForcibly().waitFor(30, TimeUnit.SECONDS); // SIGKILL: no shutdown hooks run

      broker.get().onExit().get(60, TimeUnit.SECONDS);
      assertThat(broker.get().isAlive()).isFalse();
    } finally {
      parent.destroyForcibly();
      broker.ifPresent(ProcessHandle::destroyForcibly);
    }
  }

  private static CompletableFuture<Long> readBrokerPid(Process parent) {
    return CompletableFuture.supplyAsync(
        () -> {
          // not closed here: the rest of the parent's output is drained until it dies
          BufferedReader out =
              new BufferedReader(new InputStreamReader(parent.getInputStream(), StandardCharsets.UTF_8));
          StringBuilder seen = new StringBuilder();
          try {
            for (String line = out.readLine(); line != null; line = out.readLine()) {
              if (line.startsWith("BROKER_PID=")) {
                Thread drain = new Thread(() -> out.lines().forEach(ignored -> {}), "drain-broker-holder");
                drain.setDaemon(true);
                drain.start();
                return Long.parseLong(line.substring("BROKER_PID=".length()).trim());
              }
              seen.append(line).append('\n');
            }
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
          throw new IllegalStateException("parent exited before starting the broker:\n" + seen);
        });
  }
}
