package dev.lancecommit.testing.kafka;

import dev.lancecommit.events.kafka.EmbeddedKafkaBroker;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Properties;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.testcontainers.DockerClientFactory;
import org.testcontainers.kafka.KafkaContainer;

/**
 * The one Kafka broker tests use: Testcontainers' Kafka ({@code apache/kafka}) when a Docker engine is reachable, the
 * embedded single-node KRaft broker ({@link EmbeddedKafkaBroker}) otherwise. The test log says which was taken.
 *
 * <p>Use it as {@code @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();} (started
 * before the class, stopped after), or as {@code try (KafkaBrokerFixture kafka = KafkaBrokerFixture.started()) {...}}.
 * {@link #stop()} and {@link #start()} make an outage and end it; the bootstrap address stays the same across them.
 *
 * <p>System property {@value #MODE_PROPERTY} = {@code auto} (default), {@code testcontainers} or {@code embedded}
 * forces a choice; {@value #IMAGE_PROPERTY} names another image (default {@code apache/kafka:<kafka-clients
 * version>}).
 */
public final class KafkaBrokerFixture implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  public static final String MODE_PROPERTY = "lcc.test.kafka";
  public static final String IMAGE_PROPERTY = "lcc.test.kafka.image";

  private static final Logger LOG = LoggerFactory.getLogger(KafkaBrokerFixture.class);

  /** Which broker a fixture runs. */
  public enum Kind { TESTCONTAINERS, EMBEDDED }

  private Broker broker;

  /** A started fixture; close it when done. */
  public static KafkaBrokerFixture started() {
    KafkaBrokerFixture fixture = new KafkaBrokerFixture();
    fixture.start();
    return fixture;
  }

  /** Starts the broker, or ends an outage {@link #stop()} began; a no-op while it runs. */
  public synchronized KafkaBrokerFixture start() {
    if (broker == null) {
      broker = create();
    } else {
      broker.resume();
    }
    return this;
  }

  /** Makes the broker unreachable (an outage) until {@link #start()}; topics and records are kept. */
  public synchronized void stop() {
    if (broker != null) {
      broker.suspend();
    }
  }

  /** {@code host:port} of the broker; the same across {@link #stop()} and {@link #start()}. */
  public synchronized String bootstrapServers() {
    if (broker == null) {
      throw new IllegalStateException("the Kafka test broker was not started");
    }
    return broker.bootstrapServers();
  }

  public synchronized Kind kind() {
    if (broker == null) {
      throw new IllegalStateException("the Kafka test broker was not started");
    }
    return broker.kind();
  }

  @Override
  public synchronized void close() {
    if (broker != null) {
      broker.close();
      broker = null;
    }
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  private static Broker create() {
    String mode = System.getProperty(MODE_PROPERTY, "auto").trim().toLowerCase(Locale.ROOT);
    switch (mode) {
      case "embedded" -> {
        LOG.info("Kafka test broker: the embedded KRaft broker ({}=embedded)", MODE_PROPERTY);
        return new Embedded();
      }
      case "testcontainers" -> {
        return new Container(image());
      }
      case "auto" -> {
        if (dockerAvailable()) {
          return new Container(image());
        }
        LOG.info("Kafka test broker: the embedded KRaft broker (no Docker engine reachable for Testcontainers)");
        return new Embedded();
      }
      default -> throw new IllegalArgumentException(
          MODE_PROPERTY + " must be auto, testcontainers or embedded, got '" + mode + "'");
    }
  }

  private static boolean dockerAvailable() {
    try {
      return DockerClientFactory.instance().isDockerAvailable();
    } catch (RuntimeException | LinkageError e) {
      return false;
    }
  }

  private static String image() {
    String configured = System.getProperty(IMAGE_PROPERTY);
    return configured != null ? configured : "apache/kafka:" + kafkaClientsVersion();
  }

  /** The version of kafka-clients on the class path, so the container runs the broker the embedded one does. */
  private static String kafkaClientsVersion() {
    Properties properties = new Properties();
    try (InputStream in = KafkaBrokerFixture.class.getClassLoader().getResourceAsStream("kafka/kafka-version.properties")) {
      if (in == null) {
        throw new IllegalStateException("kafka-clients is not on the class path");
      }
      properties.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return properties.getProperty("version").trim();
  }

  /** One way of running the broker. */
  private interface Broker extends AutoCloseable {
    Kind kind();

    String bootstrapServers();

    void suspend();

    void resume();

    @Override
    void close();
  }

  private static final class Embedded implements Broker {
    private final EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary();

    @Override
    public Kind kind() {
      return Kind.EMBEDDED;
    }

    @Override
    public String bootstrapServers() {
      return broker.bootstrapServers();
    }

    @Override
    public void suspend() {
      broker.stop(); // data dir and ports are kept for start()
    }

    @Override
    public void resume() {
      broker.start();
    }

    @Override
    public void close() {
      broker.close();
    }
  }

  /**
   * A Testcontainers Kafka. An outage pauses the container (its mapped port would change if it were stopped and
   * started again): clients then time out instead of being refused, which is what an unreachable cluster looks like.
   */
  private static final class Container implements Broker {
    private final KafkaContainer container;
    private boolean paused;

    Container(String image) {
      container = new KafkaContainer(image);
      container.start();
      LOG.info("Kafka test broker: Testcontainers {} at {}", image, container.getBootstrapServers());
    }

    @Override
    public Kind kind() {
      return Kind.TESTCONTAINERS;
    }

    @Override
    public String bootstrapServers() {
      return container.getBootstrapServers();
    }

    @Override
    public void suspend() {
      if (!paused) {
        container.getDockerClient().pauseContainerCmd(container.getContainerId()).exec();
        paused = true;
      }
    }

    @Override
    public void resume() {
      if (paused) {
        container.getDockerClient().unpauseContainerCmd(container.getContainerId()).exec();
        paused = false;
      }
    }

    @Override
    public void close() {
      container.stop();
    }
  }
}
