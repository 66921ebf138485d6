package dev.lancecommit.chaos.harness;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator as a separate JVM on a fixed port, so it can be killed with SIGKILL and started again on the same
 * port and warehouse. Runs {@link CoordinatorChild} from this JVM's class path, or {@code java -jar} a given
 * coordinator jar. Output of every start is appended to {@code coordinator.log} in the work dir.
 */
public final class CoordinatorProcess implements AutoCloseable {
  private static final Duration READY_TIMEOUT = Duration.ofSeconds(90);
  private static final Duration START_DEADLINE = Duration.ofMinutes(4);
  /** Starts can fail while S3 or Kafka are faulty; this many in a row means something else is wrong. */
  private static final int MAX_CONSECUTIVE_FAILED_STARTS = 10;

  private final Path workDir;
  private final int port;
  private final List<String> coordinatorArgs;
  private final Path coordinatorJar;
  private final HttpClient http = HttpClient.newBuilder()
      .version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(2))
      .build();
  private Process process;
  private int starts;
  private int failedStarts;

  /**
   * @param coordinatorArgs the coordinator's own options ({@code --warehouse ...}); {@code --port} is added
   * @param coordinatorJar a coordinator jar to {@code java -jar}, or null for this JVM's class path
   */
  public CoordinatorProcess(Path workDir, int port, List<String> coordinatorArgs, Path coordinatorJar) {
    this.workDir = workDir;
    this.port = port;
    this.coordinatorArgs = List.copyOf(coordinatorArgs);
    this.coordinatorJar = coordinatorJar;
  }

  public String baseUrl() {
    return "http://127.0.0.1:" + port;
  }

  public Path logFile() {
    return workDir.resolve("coordinator.log");
  }

  /**
   * Starts the coordinator and waits until it answers HTTP. A start that dies or does not get ready (its store or
   * Kafka may be failing at that moment) is retried until {@link #START_DEADLINE}.
   *
   * @throws IllegalStateException when it could not be started in time
   */
  public synchronized void start() {
    if (isRunning()) {
      return;
    }
    long deadline = System.nanoTime() + START_DEADLINE.toNanos();
    String lastProblem = "";
    int consecutiveFailures = 0;
    while (System.nanoTime() < deadline && consecutiveFailures < MAX_CONSECUTIVE_FAILED_STARTS) {
      try {
        process = launch();
      } catch (IOException e) {
        throw new UncheckedIOException("could not launch the coordinator", e);
      }
      starts++;
      String problem = awaitReady(Math.min(deadline, System.nanoTime() + READY_TIMEOUT.toNanos()));
      if (problem == null) {
        return;
      }
      failedStarts++;
      consecutiveFailures++;
      lastProblem = problem;
      killNow();
      sleep(1000);
    }
    throw new IllegalStateException("the coordinator did not start (" + consecutiveFailures + " attempts in a row "
        + "failed, within " + START_DEADLINE + "): " + lastProblem + "; last lines of " + logFile() + ":\n"
        + logTail());
  }

  /** SIGKILL: no shutdown hook runs, nothing is flushed. */
  public synchronized void kill() {
    killNow();
  }

  /** SIGSTOP: the process stands still (no thread runs, no heartbeat is sent) until {@link #resume()}. */
  public synchronized void suspend() {
    signal("STOP");
  }

  /** SIGCONT after {@link #suspend()}. */
  public synchronized void resume() {
    signal("CONT");
  }

  private void signal(String name) {
    if (process == null || !process.isAlive()) {
      throw new IllegalStateException("the coordinator is not running");
    }
    try {
      Process kill = new ProcessBuilder("kill", "-" + name, Long.toString(process.pid())).inheritIO().start();
      if (!kill.waitFor(10, TimeUnit.SECONDS) || kill.exitValue() != 0) {
        throw new IllegalStateException("kill -" + name + " " + process.pid() + " failed");
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not send SIG" + name, e);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while sending SIG" + name, e);
    }
  }

  public synchronized boolean isRunning() {
    return process != null && process.isAlive();
  }

  public synchronized long pid() {
    return process == null ? -1 : process.pid();
  }

  public synchronized int starts() {
    return starts;
  }

  public synchronized int failedStarts() {
    return failedStarts;
  }

  /** Stops it gracefully (SIGTERM, its shutdown hook closes everything), forcibly after 20 s. */
  @Override
  public synchronized void close() {
    Process p = process;
    if (p == null) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(20, TimeUnit.SECONDS)) {
        p.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private void killNow() {
    Process p = process;
    if (p == null) {
      return;
    }
    p.destroyForcibly(); // SIGKILL on Linux
    try {
      p.waitFor(30, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private Process launch() throws IOException {
    Files.createDirectories(workDir);
    Path logback = writeLogbackConfig();
    List<String> command = new ArrayList<>();
    command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
    command.add("-Xmx512m");
    command.add("-XX:+UseSerialGC");
    command.add("-XX:TieredStopAtLevel=1");
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.add("--add-opens=java.base/java.nio=ALL-UNNAMED"); // Arrow, for deletion files
    command.add("-Dlogback.configurationFile=" + logback);
    if (coordinatorJar != null) {
      command.add("-jar");
      command.add(coordinatorJar.toAbsolutePath().toString());
    } else {
      command.add("@" + writeClasspathArgFile());
      command.add(CoordinatorChild.class.getName());
      command.add(Long.toString(ProcessHandle.current().pid()));
    }
    command.add("--port");
    command.add(Integer.toString(port));
    command.addAll(coordinatorArgs);
    Files.writeString(logFile(), "---- " + Instant.now() + " start #" + (starts + 1) + "\n", StandardCharsets.UTF_8,
        StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    return new ProcessBuilder(command)
        .directory(workDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .start();
  }

  /** Null when ready, else what went wrong. */
  private String awaitReady(long deadlineNanos) {
    HttpRequest probe = HttpRequest.newBuilder(URI.create(baseUrl() + "/v1/table"))
        .timeout(Duration.ofSeconds(5))
        .GET()
        .build();
    while (System.nanoTime() < deadlineNanos) {
      if (!process.isAlive()) {
        return "the coordinator exited with code " + process.exitValue() + " during startup";
      }
      try {
        http.send(probe, HttpResponse.BodyHandlers.discarding());
        return null; // any HTTP answer means the server is up
      } catch (IOException e) {
        sleep(200);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        return "interrupted while waiting for the coordinator";
      }
    }
    return "the coordinator did not answer HTTP within " + READY_TIMEOUT;
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8).stream()
          .filter(line -> !line.startsWith("\tat ") && !line.startsWith("\t..."))
          .toList();
      return String.join("\n", lines.subList(Math.max(0, lines.size() - 15), lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return "(no log)";
    }
  }

  private Path writeClasspathArgFile() throws IOException {
    Path file = workDir.resolve("coordinator-classpath.args");
    if (!Files.exists(file)) {
      String quoted = JvmClasspath.current().replace("\\", "\\\\").replace("\"", "\\\"");
      Files.writeString(file, "-cp\n\"" + quoted + "\"\n", StandardCharsets.UTF_8);
    }
    return file;
  }

  private Path writeLogbackConfig() throws IOException {
    Path file = workDir.resolve("coordinator-logback.xml");
    if (!Files.exists(file)) {
      Files.writeString(file, """
          <configuration>
            <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
              <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
            </appender>
            <logger name="dev.lancecommit" level="INFO"/>
            <logger name="org.apache.kafka" level="ERROR"/>
            <root level="WARN"><appender-ref ref="OUT"/></root>
          </configuration>
          """, StandardCharsets.UTF_8);
    }
    return file;
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
