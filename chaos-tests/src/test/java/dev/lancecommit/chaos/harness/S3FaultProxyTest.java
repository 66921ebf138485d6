package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.testing.S3ProxyFixture;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The S3 fault proxy in front of a real s3proxy, driven by the coordinator's own S3 store: requests pass unchanged
 * (signatures stay valid) and each injected fault has exactly the effect on the store it claims.
 */
class S3FaultProxyTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  private FaultLog log;
  private S3FaultProxy proxy;
  private ObjectStores viaProxy;
  private ObjectStores direct;

  @BeforeAll
  static void quiet() {
    ChaosHarness.quietLogging();
  }

  @BeforeEach
  void start() throws Exception {
    log = new FaultLog();
    URI upstream = URI.create(S3.endpoint());
    proxy = new S3FaultProxy(upstream.getHost(), upstream.getPort(), 7, log);
    proxy.start();
    viaProxy = new ObjectStores(new S3Config(proxy.endpoint(), S3.region(), true, S3.accessKey(), S3.secretKey(),
        null, Duration.ofSeconds(20), Duration.ofMillis(800)));
    direct = new ObjectStores(S3.s3Config());
  }

  @AfterEach
  void stop() {
    viaProxy.close();
    direct.close();
    proxy.close();
  }

  @Test
  void relaysRequestsUnchangedWhileNoFaultIsSet() {
    ObjectStore store = store(viaProxy);
    byte[] large = new byte[3 * 1024 * 1024 + 17];
    new Random(1).nextBytes(large);
    String key = key("plain");
    store.put(key, large);
    store.putIfAbsent(key + ".manifest", "v1".getBytes(StandardCharsets.UTF_8));

    assertThat(store.get(key)).hasValueSatisfying(bytes -> assertThat(bytes).isEqualTo(large));
    assertThat(store(direct).get(key + ".manifest")).hasValueSatisfying(
        bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("v1"));
    assertThat(store.head(key)).isPresent();
    String name = key.substring(key.indexOf('/') + 1);
    assertThat(store.listDirectory("proxy-test")).contains(name, name + ".manifest");
    assertThatThrownBy(() -> store.putIfAbsent(key + ".manifest", new byte[] {1}))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(log.counts()).isEmpty();
  }

  @Test
  void droppedAnswerAfterAConditionalWriteLeavesTheWriteLanded() {
    proxy.setFaults(new S3Faults(0, 0, 0, 0, 0, 1.0));
    String key = key("dropped");

    assertThatThrownBy(() -> store(viaProxy).putIfAbsent(key, "mine".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(StoreOutcomeUnknownException.class);

    assertThat(store(direct).get(key)).hasValueSatisfying(
        bytes -> assertThat(new String(bytes, StandardCharsets.UTF_8)).isEqualTo("mine"));
    assertThat(log.countOf(FaultLog.S3_DROP_AFTER_WRITE)).isEqualTo(1);
    // A refused create (412) is answered: only successful writes lose their answer.
    assertThatThrownBy(() -> store(viaProxy).putIfAbsent(key, "again".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(log.countOf(FaultLog.S3_DROP_AFTER_WRITE)).isEqualTo(1);
  }

  @Test
  void injectedErrorsForwardNothing() {
    proxy.setFaults(new S3Faults(1.0, 0, 0, 0, 0, 0));
    String key = key("refused");

    assertThatThrownBy(() -> store(viaProxy).putIfAbsent(key, new byte[] {1, 2}))
        .isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> store(viaProxy).put(key + ".txn", new byte[] {3}))
        .isInstanceOf(StoreException.class);
    assertThatThrownBy(() -> store(viaProxy).get(key)).isInstanceOf(StoreException.class);

    proxy.setFaults(S3Faults.NONE);
    assertThat(store(direct).get(key)).isEmpty();
    assertThat(store(direct).get(key + ".txn")).isEmpty();
    assertThat(log.countOf(FaultLog.S3_5XX)).isGreaterThanOrEqualTo(3);
  }

  @Test
  void stalledWriteLandsAfterTheClientGaveUp() throws Exception {
    proxy.setFaults(new S3Faults(0, 0, 0, 1.0, 2_000, 0));
    String key = key("stalled");

    assertThatThrownBy(() -> store(viaProxy).putIfAbsent(key, "late".getBytes(StandardCharsets.UTF_8)))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    proxy.setFaults(S3Faults.NONE);

    Optional<byte[]> landed = Optional.empty();
    long deadline = System.nanoTime() + Duration.ofSeconds(30).toNanos();
    while (landed.isEmpty() && System.nanoTime() < deadline) {
      Thread.sleep(100);
      landed = store(direct).get(key);
    }
    assertThat(landed).as("the stalled create lands eventually").isPresent();
    assertThat(log.countOf(FaultLog.S3_STALL)).isEqualTo(1);
  }

  private static ObjectStore store(ObjectStores stores) {
    return stores.resolve(S3.uri("")).store();
  }

  private static String key(String prefix) {
    return "proxy-test/" + prefix + "-" + UUID.randomUUID();
  }
}
