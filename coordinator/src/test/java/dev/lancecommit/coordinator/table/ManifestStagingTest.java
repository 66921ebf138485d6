package dev.lancecommit.coordinator.table;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StagedPut;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A manifest staged on another thread: made once, by whoever comes first; discarded whenever it ends. */
class ManifestStagingTest {
  @TempDir Path root;

  @Test
  void aStagingNotStartedWhenTheWriteNeedsItIsDoneByTheWriteAndNeverAgain() throws Exception {
    LocalObjectStore store = new LocalObjectStore(root);
    AtomicInteger staged = new AtomicInteger();
    List<Runnable> parked = new ArrayList<>();
    ManifestStaging staging = ManifestStaging.start(counting(store, "v/1.manifest", staged), parked::add);
    staging.get().create();
    parked.forEach(Runnable::run);
    assertThat(staged).hasValue(1);
    assertThat(files()).containsExactly("1.manifest");
  }

  @Test
  void aStagingDiscardedBeforeItStartsNeverWritesAnything() {
    LocalObjectStore store = new LocalObjectStore(root);
    AtomicInteger staged = new AtomicInteger();
    List<Runnable> parked = new ArrayList<>();
    ManifestStaging staging = ManifestStaging.start(counting(store, "v/1.manifest", staged), parked::add);
    staging.discard();
    parked.forEach(Runnable::run);
    assertThat(staged).hasValue(0);
    assertThat(root.resolve("v")).doesNotExist();
  }

  @Test
  void aStagingDiscardedWhileUnderWayRemovesItsFileWhenItEnds() throws Exception {
    LocalObjectStore store = new LocalObjectStore(root);
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    ManifestStaging staging = ManifestStaging.start(() -> {
      started.countDown();
      await(proceed);
      return store.stagePutIfAbsent("v/1.manifest", "m".getBytes(UTF_8));
    }, task -> new Thread(task).start());
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    staging.discard();
    proceed.countDown();
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> files().isEmpty());
  }

  @Test
  void aStagingThatFailedFailsTheWriteThatNeedsIt() {
    ManifestStaging staging = ManifestStaging.start(() -> {
      throw new StoreUnavailableException("disk full", null);
    }, Runnable::run);
    assertThatThrownBy(staging::get).isInstanceOf(StoreUnavailableException.class).hasMessageContaining("disk full");
  }

  private List<String> files() throws java.io.IOException {
    Path dir = root.resolve("v");
    if (!Files.exists(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    }
  }

  private static Supplier<StagedPut> counting(LocalObjectStore store, String key, AtomicInteger count) {
    return () -> {
      count.incrementAndGet();
      return store.stagePutIfAbsent(key, "m".getBytes(UTF_8));
    };
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
