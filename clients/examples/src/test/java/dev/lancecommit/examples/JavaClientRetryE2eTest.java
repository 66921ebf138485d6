package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.CommitClient;
import dev.lancecommit.client.CommitResult;
import dev.lancecommit.client.CommitStateUnknownException;
import dev.lancecommit.client.RetryPolicy;
import dev.lancecommit.client.TableId;
import dev.lancecommit.client.TableInfo;
import dev.lancecommit.client.ThrottledException;
import dev.lancecommit.examples.FaultProxy.LostBehind503;
import dev.lancecommit.examples.FaultProxy.LostConnection;
import dev.lancecommit.examples.FaultProxy.Throttled;
import dev.lancecommit.examples.FaultProxy.Unavailable;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Arrays;
import java.util.List;
import java.util.UUID;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The retry policy against a real coordinator behind a {@link FaultProxy}: lost answers are resubmitted with the
 * identical bytes (and answered with the version the first attempt created), 429 waits at least its Retry-After, and
 * a commit that never gets a definite answer is reported as state-unknown with the request that settles it.
 */
class JavaClientRetryE2eTest {
  private static final RetryPolicy FAST = RetryPolicy.DEFAULT.withRetryBudget(Duration.ofSeconds(5))
      .withBackoff(Duration.ofMillis(10), Duration.ofMillis(200)).withRequestTimeout(Duration.ofSeconds(30));

  @TempDir static Path dir;
  private static LocalCoordinator coordinator;
  private static CommitClient direct;
  private static String namespace;
  private FaultProxy proxy;
  private CommitClient throughProxy;

  @BeforeAll
  static void start() {
    coordinator = LocalCoordinator.start(dir.resolve("warehouse"));
    direct = CommitClient.builder().uri(coordinator.url()).build();
    namespace = "retry_" + UUID.randomUUID().toString().substring(0, 8);
    direct.createNamespace(namespace);
  }

  @AfterAll
  static void stop() {
    direct.close();
    coordinator.close();
  }

  @BeforeEach
  void startProxy() throws Exception {
    proxy = new FaultProxy(coordinator.url());
    throughProxy = CommitClient.builder().uri(proxy.url()).retryPolicy(FAST).build();
  }

  @AfterEach
  void stopProxy() {
    throughProxy.close();
    proxy.close();
  }

  private static TableInfo create(String name) {
    TableId id = TableId.of(namespace, name);
    TableInfo table = direct.declareTable(id);
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      direct.createTable(id, lance.writeRows(0, 10), LanceTables.ROW_SCHEMA);
    }
    return table;
  }

  @Test
  void lostAnswersAreResubmittedWithTheSameBytes() {
    TableInfo table = create("lost");
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      proxy.inject(new LostBehind503(), new LostConnection());
      CommitResult result = throughProxy.append(table.id(), lance.writeRows(10, 5));
      // the first attempt landed; both resubmissions (identical bytes) were answered with that version
      assertThat(result.version()).isEqualTo(2);
      assertThat(proxy.forwardedCommits()).isEqualTo(3);
      List<byte[]> bodies = proxy.commitBodies();
      assertThat(bodies).hasSize(3).allSatisfy(b -> assertThat(Arrays.equals(b, bodies.get(0))).isTrue());
      assertThat(lance.versions()).containsExactly(1L, 2L);
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(LongStream.range(0, 15).boxed().toList());
    }
  }

  @Test
  void throttlingHonoursRetryAfter() {
    TableInfo table = create("throttled");
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      proxy.inject(new Throttled(1));
      long started = System.nanoTime();
      CommitResult result = throughProxy.append(table.id(), lance.writeRows(10, 1));
      assertThat(Duration.ofNanos(System.nanoTime() - started)).isGreaterThanOrEqualTo(Duration.ofSeconds(1));
      assertThat(result.version()).isEqualTo(2);
      assertThat(proxy.forwardedCommits()).isEqualTo(1);

      for (int i = 0; i < 1000; i++) {
        proxy.inject(new Throttled(0));
      }
      assertThatThrownBy(() -> throughProxy.append(table.id(), List.of()))
          .isInstanceOfSatisfying(ThrottledException.class, e -> {
            assertThat(e.httpStatus()).isEqualTo(429);
            assertThat(e.code()).isEqualTo(21);
          });
      assertThat(lance.versions()).containsExactly(1L, 2L);
    }
  }

  @Test
  void anUnknownOutcomeIsReportedAndSettledByResubmitting() {
    TableInfo table = create("unknown");
    try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
      proxy.inject(new LostBehind503());
      for (int i = 0; i < 1000; i++) {
        proxy.inject(new Unavailable());
      }
      CommitStateUnknownException unknown = org.junit.jupiter.api.Assertions.assertThrows(
          CommitStateUnknownException.class, () -> throughProxy.append(table.id(), lance.writeRows(10, 2)));
      assertThat(unknown.httpStatus()).isEqualTo(503);
      assertThat(unknown.code()).isEqualTo(17);
      assertThat(unknown.table()).isEqualTo(table.id());
      proxy.clear();
      // the first attempt had landed: resubmitting the same request answers that version and writes nothing new
      CommitResult settled = direct.commit(table.id(), unknown.request());
      assertThat(settled.version()).isEqualTo(2);
      assertThat(settled.transactionUuid()).isEqualTo(unknown.transactionUuid());
      assertThat(lance.versions()).containsExactly(1L, 2L);
      assertThat(lance.countRows(2)).isEqualTo(12);
    }
  }
}
