package dev.lancecommit.events.kafka;

import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.common.Node;
import org.apache.kafka.common.Uuid;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A real single-node KRaft Kafka broker (combined broker and controller) running in a child JVM, built from the
 * {@code kafka_2.13} classes on this JVM's classpath. For tests and for a coordinator started without an external
 * Kafka.
 *
 * <p>Lifecycle: {@link #start()} formats the data dir on first use and waits until the broker answers; {@link #stop()}
 * sends SIGTERM and waits; {@link #start()} again reuses the same data dir and ports, so topics and records survive a
 * stop/start (outage tests); {@link #close()} stops it and deletes the data dir if the broker created it. A JVM
 * shutdown hook kills the child if this JVM exits without closing. Child output goes to {@link #logFile()}.
 */
public final class EmbeddedKafkaBroker implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(EmbeddedKafkaBroker.class);
  private static final String LOOPBACK = "127.0.0.1";

  /**
   * Extra child JVM options by default. A one-node broker needs little throughput but starts often in tests on
   * small machines: C1-only JIT and the serial collector cut its startup CPU.
   */
  public static final List<String> DEFAULT_JVM_OPTIONS =
      List.of("-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC");

  private final Path dataDir;
  private final boolean deleteOnClose;
  private final String maxHeap;
  private final Duration startupTimeout;
  private final Duration stopTimeout;
  private final Map<String, String> extraServerProperties;
  private final List<String> jvmOptions;
  private int brokerPort;
  private int controllerPort;
  private String clusterId;
  private volatile Process process;
  private Thread shutdownHook;
  private boolean closed;

  private EmbeddedKafkaBroker(Builder builder) {
    try {
      if (builder.dataDir == null) {
        this.dataDir = Files.createTempDirectory("embedded-kafka-").toAbsolutePath();
        this.deleteOnClose = true;
      } else {
        this.dataDir = builder.dataDir.toAbsolutePath();
        this.deleteOnClose = false;
      }
    } catch (IOException e) {
      throw new UncheckedIOException("could not create a data dir for the embedded Kafka broker", e);
    }
    this.maxHeap = builder.maxHeap;
    this.startupTimeout = builder.startupTimeout;
    this.stopTimeout = builder.stopTimeout;
    this.extraServerProperties = Map.copyOf(builder.serverProperties);
    this.jvmOptions = List.copyOf(builder.jvmOptions);
    this.brokerPort = builder.brokerPort;
    this.controllerPort = builder.controllerPort;
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Starts a broker with defaults on a temporary data dir (deleted on close). */
  public static EmbeddedKafkaBroker startTemporary() {
    EmbeddedKafkaBroker broker = builder().build();
    try {
      return broker.start();
    } catch (RuntimeException e) {
      broker.close();
      throw e;
    }
  }

  /**
   * Starts the broker and waits until it serves requests. A no-op if it is running.
   *
   * @throws EmbeddedKafkaException if formatting or startup failed or timed out (the child is killed)
   */
  public synchronized EmbeddedKafkaBroker start() {
    if (closed) {
      throw new IllegalStateException("embedded Kafka broker is closed");
    }
    if (process != null && process.isAlive()) {
      return this;
    }
    try {
      Files.createDirectories(dataDir);
      choosePorts();
      Path config = writeServerProperties();
      Path logback = writeChildLogging();
      Path argFile = writeClasspathArgFile();
      if (!Files.exists(logDir().resolve("meta.properties"))) {
        clusterId = Uuid.randomUuid().toString();
        format(argFile, logback, config);
      } else {
        clusterId = readClusterId();
      }
      registerShutdownHook();
      process = launch(argFile, logback, List.of(KafkaChildMain.class.getName(), config.toString()));
      awaitReady();
      LOG.info("embedded Kafka broker ready at {} (data dir {})", bootstrapServers(), dataDir);
      return this;
    } catch (IOException e) {
      killChild();
      throw new EmbeddedKafkaException("could not start embedded Kafka in " + dataDir + ": " + e, e);
    } catch (RuntimeException e) {
      killChild();
      throw e;
    }
  }

  /** Stops the broker with SIGTERM (forcibly after the stop timeout). Data and ports are kept for {@link #start()}. */
  public synchronized void stop() {
    Process child = process;
    if (child == null) {
      return;
    }
    child.destroy();
    try {
      if (!child.waitFor(stopTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        LOG.warn("embedded Kafka broker did not stop within {}, killing it", stopTimeout);
        child.destroyForcibly().waitFor(stopTimeout.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      child.destroyForcibly();
      Thread.currentThread().interrupt();
    } finally {
      process = null;
    }
  }

  /** Stops the broker, removes the shutdown hook and deletes the data dir if this broker created it. */
  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    stop();
    closed = true;
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook runs anyway
      }
      shutdownHook = null;
    }
    if (deleteOnClose) {
      deleteRecursively(dataDir);
    }
  }

  /** The pid of the broker JVM while it runs. */
  public OptionalLong pid() {
    Process child = process;
    return child != null && child.isAlive() ? OptionalLong.of(child.pid()) : OptionalLong.empty();
  }

  public boolean isRunning() {
    Process child = process;
    return child != null && child.isAlive();
  }

  /** {@code 127.0.0.1:port} of the PLAINTEXT listener; the same across stop/start. */
  public synchronized String bootstrapServers() {
    if (brokerPort == 0) {
      throw new IllegalStateException("embedded Kafka broker was never started");
    }
    return LOOPBACK + ":" + brokerPort;
  }

  public synchronized int brokerPort() {
    return brokerPort;
  }

  public synchronized int controllerPort() {
    return controllerPort;
  }

  public synchronized String clusterId() {
    return clusterId;
  }

  public Path dataDir() {
    return dataDir;
  }

  /** The child JVM's combined stdout and stderr. */
  public Path logFile() {
    return dataDir.resolve("broker.log");
  }

  private Path logDir() {
    return dataDir.resolve("kafka-logs");
  }

  private void choosePorts() throws IOException {
    if (brokerPort != 0 && controllerPort != 0) {
      return;
    }
    // Hold both sockets at once so that the two ports differ.
    try (ServerSocket a = freeSocket();
        ServerSocket b = freeSocket()) {
      if (brokerPort == 0) {
        brokerPort = a.getLocalPort();
      }
      if (controllerPort == 0) {
        controllerPort = b.getLocalPort() != brokerPort ? b.getLocalPort() : a.getLocalPort();
      }
    }
  }

  private static ServerSocket freeSocket() throws IOException {
    ServerSocket socket = new ServerSocket(0, 1, InetAddress.getByName(LOOPBACK));
    socket.setReuseAddress(true);
    return socket;
  }

  private Path writeServerProperties() throws IOException {
    Map<String, String> props = new LinkedHashMap<>();
    props.put("process.roles", "broker,controller");
    props.put("node.id", "1");
    props.put("controller.quorum.voters", "1@" + LOOPBACK + ":" + controllerPort);
    props.put("listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort + ",CONTROLLER://" + LOOPBACK + ":" + controllerPort);
    props.put("advertised.listeners", "PLAINTEXT://" + LOOPBACK + ":" + brokerPort);
    props.put("controller.listener.names", "CONTROLLER");
    props.put("inter.broker.listener.name", "PLAINTEXT");
    props.put("listener.security.protocol.map", "PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT");
    props.put("log.dirs", logDir().toString());
    props.put("num.partitions", "3");
    props.put("default.replication.factor", "1");
    props.put("min.insync.replicas", "1");
    props.put("offsets.topic.replication.factor", "1");
    props.put("offsets.topic.num.partitions", "1");
    props.put("transaction.state.log.replication.factor", "1");
    props.put("transaction.state.log.min.isr", "1");
    props.put("transaction.state.log.num.partitions", "1");
    props.put("share.coordinator.state.topic.replication.factor", "1");
    props.put("share.coordinator.state.topic.min.isr", "1");
    props.put("share.coordinator.state.topic.num.partitions", "1");
    props.put("group.initial.rebalance.delay.ms", "0");
    props.putAll(extraServerProperties);
    Path file = dataDir.resolve("server.properties");
    String text =
        props.entrySet().stream()
            .map(e -> e.getKey() + "=" + e.getValue().replace("\\", "\\\\"))
            .collect(Collectors.joining("\n", "", "\n"));
    Files.writeString(file, text, StandardCharsets.UTF_8);
    return file;
  }

  private Path writeChildLogging() throws IOException {
    // Used if the child's SLF4J binding is logback; keeps the test classpath's logback-test.xml out of the broker.
    Path file = dataDir.resolve("broker-logback.xml");
    Files.writeString(
        file,
        """
        <configuration>
          <appender name="OUT" class="ch.qos.logback.core.ConsoleAppender">
            <encoder><pattern>%d{HH:mm:ss.SSS} %-5level [%thread] %logger{36} - %msg%n</pattern></encoder>
          </appender>
          <logger name="org.apache.kafka.common.config" level="WARN"/>
          <logger name="state.change.logger" level="WARN"/>
          <root level="INFO"><appender-ref ref="OUT"/></root>
        </configuration>
        """,
        StandardCharsets.UTF_8);
    return file;
  }

  private Path writeClasspathArgFile() throws IOException {
    String classPath =
        ChildClasspath.resolve(System.getProperty("java.class.path")).stream()
            .map(Path::toString)
            .collect(Collectors.joining(File.pathSeparator));
    // A java @argfile: no command-line length limit; backslash escapes inside double quotes.
    String quoted = classPath.replace("\\", "\\\\").replace("\"", "\\\"");
    Path file = dataDir.resolve("child-classpath.args");
    Files.writeString(file, "-cp\n\"" + quoted + "\"\n", StandardCharsets.UTF_8);
    return file;
  }

  private void format(Path argFile, Path logback, Path config) throws IOException {
    Process formatter =
        launch(argFile, logback, List.of("kafka.tools.StorageTool", "format", "-t", clusterId, "-c", config.toString()));
    try {
      if (!formatter.waitFor(startupTimeout.toMillis(), TimeUnit.MILLISECONDS)) {
        formatter.destroyForcibly();
        throw new EmbeddedKafkaException("formatting " + logDir() + " timed out" + logTail());
      }
    } catch (InterruptedException e) {
      formatter.destroyForcibly();
      Thread.currentThread().interrupt();
      throw new EmbeddedKafkaException("interrupted while formatting " + logDir(), e);
    }
    if (formatter.exitValue() != 0) {
      throw new EmbeddedKafkaException(
          "kafka.tools.StorageTool format exited with " + formatter.exitValue() + logTail());
    }
  }

  private Process launch(Path argFile, Path logback, List<String> mainAndArgs) throws IOException {
    Path javaBin = Path.of(System.getProperty("java.home"), "bin", "java");
    List<String> command = new ArrayList<>();
    command.add(javaBin.toString());
    command.add("@" + argFile);
    command.add("-Xmx" + maxHeap);
    command.add("-XX:+ExitOnOutOfMemoryError");
    command.addAll(jvmOptions);
    command.add("-Djava.awt.headless=true");
    command.add("-Dlogback.configurationFile=" + logback);
    command.add("-Dlancecommit.embedded.kafka=" + dataDir);
    command.add("-D" + KafkaChildMain.PARENT_PID_PROPERTY + "=" + ProcessHandle.current().pid());
    command.addAll(mainAndArgs);
    Files.writeString(
        logFile(),
        "---- " + Instant.now() + " " + String.join(" ", mainAndArgs) + "\n",
        StandardCharsets.UTF_8,
        StandardOpenOption.CREATE,
        StandardOpenOption.APPEND);
    return new ProcessBuilder(command)
        .directory(dataDir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.appendTo(logFile().toFile()))
        .redirectInput(ProcessBuilder.Redirect.PIPE)
        .start();
  }

  private void awaitReady() {
    long deadline = System.nanoTime() + startupTimeout.toNanos();
    Properties props = new Properties();
    props.put(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrapServers());
    props.put(AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000);
    props.put(AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 2000);
    props.put(AdminClientConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 200);
    props.put(AdminClientConfig.CLIENT_ID_CONFIG, "embedded-kafka-readiness");
    Throwable last = awaitListening(deadline);
    try (Admin admin = Admin.create(props)) {
      while (System.nanoTime() < deadline) {
        Process child = process;
        if (child == null || !child.isAlive()) {
          throw new EmbeddedKafkaException(
              "embedded Kafka broker exited during startup"
                  + (child == null ? "" : " with code " + child.exitValue())
                  + logTail());
        }
        try {
          Collection<Node> nodes = admin.describeCluster().nodes().get(2, TimeUnit.SECONDS);
          if (!nodes.isEmpty()) {
            return;
          }
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new EmbeddedKafkaException("interrupted while waiting for embedded Kafka", e);
        } catch (Exception e) {
          last = e;
        }
        sleep(200);
      }
    }
    throw new EmbeddedKafkaException(
        "embedded Kafka broker not ready within " + startupTimeout + " (last error: " + last + ")" + logTail());
  }

  /**
   * Waits until the broker's listener accepts TCP connections. Only then is the readiness client created: a Kafka
   * client that meets a refused connection logs "Connection to node -1 ... could not be established" each time it
   * retries, which reads like a failure on every normal start.
   */
  private Throwable awaitListening(long deadline) {
    IOException last = null;
    while (System.nanoTime() < deadline) {
      Process child = process;
      if (child == null || !child.isAlive()) {
        return last;
      }
      try (Socket socket = new Socket()) {
        socket.connect(new InetSocketAddress(LOOPBACK, brokerPort), 500);
        return null;
      } catch (IOException e) {
        last = e;
      }
      sleep(100);
    }
    return last;
  }

  private String readClusterId() throws IOException {
    Properties meta = new Properties();
    try (InputStream in = Files.newInputStream(logDir().resolve("meta.properties"))) {
      meta.load(in);
    }
    return meta.getProperty("cluster.id");
  }

  private void registerShutdownHook() {
    if (shutdownHook == null) {
      shutdownHook = new Thread(this::killChild, "embedded-kafka-shutdown");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
  }

  /** Unsynchronized on purpose: runs from the shutdown hook while another thread may hold the monitor. */
  private void killChild() {
    Process child = process;
    if (child == null) {
      return;
    }
    child.destroy();
    try {
      if (!child.waitFor(5, TimeUnit.SECONDS)) {
        child.destroyForcibly();
      }
    } catch (InterruptedException e) {
      child.destroyForcibly();
      Thread.currentThread().interrupt();
    }
    process = null;
  }

  private String logTail() {
    try {
      List<String> lines = Files.readAllLines(logFile(), StandardCharsets.UTF_8);
      int from = Math.max(0, lines.size() - 40);
      return "\n--- last lines of " + logFile() + " ---\n" + String.join("\n", lines.subList(from, lines.size()));
    } catch (IOException | UncheckedIOException e) {
      return " (no log at " + logFile() + ")";
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new EmbeddedKafkaException("interrupted while waiting for embedded Kafka", e);
    }
  }

  private static void deleteRecursively(Path root) {
    if (!Files.exists(root)) {
      return;
    }
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> p.toFile().delete());
    } catch (IOException e) {
      LOG.warn("could not delete {}: {}", root, e.toString());
    }
  }

  /** Builder. Defaults: temporary data dir, free loopback ports, 512 MB heap, 60 s startup, 30 s stop timeout. */
  public static final class Builder {
    private Path dataDir;
    private int brokerPort;
    private int controllerPort;
    private String maxHeap = "512m";
    private Duration startupTimeout = Duration.ofSeconds(60);
    private Duration stopTimeout = Duration.ofSeconds(30);
    private final Map<String, String> serverProperties = new LinkedHashMap<>();
    private final List<String> jvmOptions = new ArrayList<>(DEFAULT_JVM_OPTIONS);

    private Builder() {}

    /** A data dir to use and keep (it is not deleted on close); a formatted one is reused. */
    public Builder dataDir(Path value) {
      dataDir = Objects.requireNonNull(value, "dataDir");
      return this;
    }

    /** PLAINTEXT listener port; 0 (default) picks a free one on first start. */
    public Builder brokerPort(int value) {
      brokerPort = checkPort(value);
      return this;
    }

    /** CONTROLLER listener port; 0 (default) picks a free one on first start. */
    public Builder controllerPort(int value) {
      controllerPort = checkPort(value);
      return this;
    }

    /** The child's -Xmx value, e.g. "512m". */
    public Builder maxHeap(String value) {
      if (value == null || !value.matches("\\d+[kKmMgG]?")) {
        throw new IllegalArgumentException("max heap must look like 512m, got " + value);
      }
      maxHeap = value;
      return this;
    }

    /** Replaces the child's extra JVM options (default {@link #DEFAULT_JVM_OPTIONS}); -Xmx is set by {@link #maxHeap}. */
    public Builder jvmOptions(List<String> value) {
      jvmOptions.clear();
      jvmOptions.addAll(value);
      return this;
    }

    public Builder startupTimeout(Duration value) {
      startupTimeout = Objects.requireNonNull(value, "startupTimeout");
      return this;
    }

    public Builder stopTimeout(Duration value) {
      stopTimeout = Objects.requireNonNull(value, "stopTimeout");
      return this;
    }

    /** A server.properties entry, applied over the defaults (e.g. {@code auto.create.topics.enable=false}). */
    public Builder serverProperty(String key, String value) {
      serverProperties.put(Objects.requireNonNull(key, "key"), Objects.requireNonNull(value, "value"));
      return this;
    }

    public EmbeddedKafkaBroker build() {
      return new EmbeddedKafkaBroker(this);
    }

    private static int checkPort(int value) {
      if (value < 0 || value > 65535) {
        throw new IllegalArgumentException("port out of range: " + value);
      }
      return value;
    }
  }
}
