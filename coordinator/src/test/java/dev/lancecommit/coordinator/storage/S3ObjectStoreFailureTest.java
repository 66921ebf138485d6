package dev.lancecommit.coordinator.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/** How S3 transport failures surface, against real sockets and a real s3proxy. */
class S3ObjectStoreFailureTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  private SilentServer silent;

  @BeforeEach
  void startSilentServer() throws IOException {
    silent = new SilentServer();
  }

  @AfterEach
  void stopSilentServer() {
    silent.close();
  }

  private static S3Config configFor(String endpoint, Duration attemptTimeout) {
    return new S3Config(endpoint, "us-east-1", true, "key", "secret", null, Duration.ofSeconds(20), attemptTimeout);
  }

  @Test
  void aTimedOutConditionalPutIsOutcomeUnknownAndIsSentExactlyOnce() {
    // The attempt timeout must leave a cold JVM time to connect; the server never answers, so it always expires.
    try (S3ObjectStore store = S3ObjectStore.create(configFor(silent.endpoint(), Duration.ofMillis(1500)), "b")) {
      assertThatThrownBy(() -> store.putIfAbsent("t/_versions/1.manifest", "m".getBytes(UTF_8)))
          .isInstanceOf(StoreOutcomeUnknownException.class)
          .hasMessageContaining("s3://b/t/_versions/1.manifest");
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> silent.connections() >= 1);
    assertThat(silent.connections()).as("no SDK retry of the conditional put").isEqualTo(1);
  }

  @Test
  void aTimedOutPlainPutIsRetriedAndThenOutcomeUnknown() {
    // Shows the connection count above can see retries: ordinary writes do use the SDK's retries.
    try (S3ObjectStore store = S3ObjectStore.create(configFor(silent.endpoint(), Duration.ofMillis(600)), "b")) {
      assertThatThrownBy(() -> store.put("k", "v".getBytes(UTF_8)))
          .isInstanceOf(StoreOutcomeUnknownException.class);
    }
    await().atMost(Duration.ofSeconds(10)).until(() -> silent.connections() >= 2);
  }

  @Test
  void aTimedOutReadIsUnavailable() {
    try (S3ObjectStore store = S3ObjectStore.create(configFor(silent.endpoint(), Duration.ofMillis(200)), "b")) {
      assertThatThrownBy(() -> store.get("k")).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aRefusedUnretriedConnectionMeansCertainlyNotApplied() throws IOException {
    String endpoint;
    try (ServerSocket closedAgain = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
      endpoint = "http://127.0.0.1:" + closedAgain.getLocalPort();
    }
    try (S3ObjectStore store = S3ObjectStore.create(configFor(endpoint, Duration.ofSeconds(2)), "b")) {
      assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1])).isInstanceOf(StoreUnavailableException.class);
      assertThatThrownBy(() -> store.get("k")).isInstanceOf(StoreUnavailableException.class);
      // A retried write: the SDK keeps only the messages of earlier attempts, so "never sent" cannot be proven.
      assertThatThrownBy(() -> store.put("k", new byte[1])).isInstanceOf(StoreOutcomeUnknownException.class);
      assertThatThrownBy(() -> store.list("")).isInstanceOf(StoreUnavailableException.class);
    }
  }

  @Test
  void aMissingBucketIsAnErrorNotAnAbsentKey() {
    try (S3ObjectStore store = S3ObjectStore.create(S3.s3Config(), "no-such-bucket")) {
      assertThatThrownBy(() -> store.get("k"))
          .isInstanceOf(StoreException.class)
          .isNotInstanceOf(StoreUnavailableException.class)
          .hasMessageContaining("404");
    }
  }

  @Test
  void wrongCredentialsAreADefiniteRejection() {
    S3Config wrong = new S3Config(S3.endpoint(), S3.region(), true, S3.accessKey(), "not-the-secret", null,
        Duration.ofSeconds(20), Duration.ofSeconds(5));
    try (S3ObjectStore store = S3ObjectStore.create(wrong, S3.bucket())) {
      assertThatThrownBy(() -> store.putIfAbsent("k", new byte[1]))
          .isInstanceOf(StoreException.class)
          .isNotInstanceOfAny(ObjectAlreadyExistsException.class, StoreOutcomeUnknownException.class,
              StoreUnavailableException.class)
          .hasMessageContaining("403");
    }
    try (S3ObjectStore store = S3ObjectStore.create(S3.s3Config(), S3.bucket())) {
      assertThat(store.get("k")).isEmpty();
    }
  }

  /** Accepts connections and never answers. */
  private static final class SilentServer implements AutoCloseable {
    private final ServerSocket server;
    private final List<Socket> accepted = new CopyOnWriteArrayList<>();
    private final AtomicInteger connections = new AtomicInteger();
    private final Thread acceptor;

    SilentServer() throws IOException {
      server = new ServerSocket(0, 50, InetAddress.getLoopbackAddress());
      acceptor = new Thread(this::acceptLoop, "silent-s3");
      acceptor.setDaemon(true);
      acceptor.start();
    }

    String endpoint() {
      return "http://127.0.0.1:" + server.getLocalPort();
    }

    int connections() {
      return connections.get();
    }

    private void acceptLoop() {
      while (!server.isClosed()) {
        try {
          Socket socket = server.accept();
          connections.incrementAndGet();
          accepted.add(socket);
          drain(socket);
        } catch (IOException e) {
          return; // closed
        }
      }
    }

    /** Reads the request so the client is never blocked writing it; answers nothing. */
    private static void drain(Socket socket) {
      Thread reader = new Thread(() -> {
        try (InputStream in = socket.getInputStream()) {
          in.transferTo(OutputStream.nullOutputStream());
        } catch (IOException ignored) {
          // client went away
        }
      }, "silent-s3-reader");
      reader.setDaemon(true);
      reader.start();
    }

    @Override
    public void close() {
      try {
        server.close();
      } catch (IOException ignored) {
        // closing anyway
      }
      for (Socket socket : accepted) {
        try {
          socket.close();
        } catch (IOException ignored) {
          // closing anyway
        }
      }
    }
  }
}
