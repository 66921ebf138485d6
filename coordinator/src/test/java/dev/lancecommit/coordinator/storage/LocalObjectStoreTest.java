package dev.lancecommit.coordinator.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Filesystem-specific behaviour beyond the shared contract. */
class LocalObjectStoreTest {
  @TempDir
  Path root;

  @Test
  void objectsAreFilesBelowTheRootAndUrisAreAbsolutePaths() throws IOException {
    LocalObjectStore store = new LocalObjectStore(root);

    store.put("t1/_versions/1.manifest", "m".getBytes(UTF_8));

    assertThat(Files.readString(root.resolve("t1/_versions/1.manifest"))).isEqualTo("m");
    assertThat(store.uri()).isEqualTo(root.toString());
    assertThat(store.uriOf("t1/_versions/1.manifest")).isEqualTo(root.resolve("t1/_versions/1.manifest").toString());
    assertThat(store.uriOf("")).isEqualTo(root.toString());
  }

  @Test
  void noTemporaryFilesAreLeftBehindAfterWinsAndLosses() throws IOException {
    LocalObjectStore store = new LocalObjectStore(root);

    store.put("d/a", "1".getBytes(UTF_8));
    store.put("d/a", "2".getBytes(UTF_8));
    store.putIfAbsent("d/b", "3".getBytes(UTF_8));
    assertThatThrownBy(() -> store.putIfAbsent("d/b", "4".getBytes(UTF_8)))
        .isInstanceOf(ObjectAlreadyExistsException.class);

    try (Stream<Path> files = Files.list(root.resolve("d"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactlyInAnyOrder("a", "b");
    }
  }

  /** Staging writes the bytes under a temporary name now; create links them, and no temporary file outlives either. */
  @Test
  void aStagedPutWritesItsBytesAheadAndLeavesNoTemporaryFileBehind() throws IOException {
    LocalObjectStore store = new LocalObjectStore(root);
    StagedPut won = store.stagePutIfAbsent("v/1.manifest", "1".getBytes(UTF_8));
    try (Stream<Path> files = Files.list(root.resolve("v"))) {
      assertThat(files.map(p -> p.getFileName().toString())).singleElement()
          .satisfies(name -> assertThat(name).startsWith(ObjectKeys.RESERVED_SEGMENT_PREFIX));
    }
    won.create();
    StagedPut lost = store.stagePutIfAbsent("v/1.manifest", "other".getBytes(UTF_8));
    assertThatThrownBy(lost::create).isInstanceOf(ObjectAlreadyExistsException.class);
    store.stagePutIfAbsent("v/2.manifest", "2".getBytes(UTF_8)).discard();

    try (Stream<Path> files = Files.list(root.resolve("v"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("1.manifest");
    }
    assertThat(Files.readString(root.resolve("v/1.manifest"))).isEqualTo("1");
  }

  @Test
  void onlyStagedFilesOlderThanTheCutOffAreRemovedAsAbandoned() throws IOException {
    LocalObjectStore store = new LocalObjectStore(root);
    store.put("v/1.manifest", "1".getBytes(UTF_8));
    StagedPut live = store.stagePutIfAbsent("v/2.manifest", "2".getBytes(UTF_8));
    Path old = root.resolve("v/" + ObjectKeys.RESERVED_SEGMENT_PREFIX + "abandoned");
    Files.writeString(old, "staged by a process that stopped");
    Files.setLastModifiedTime(old, java.nio.file.attribute.FileTime.from(
        java.time.Instant.now().minus(java.time.Duration.ofHours(2))));
    Files.setLastModifiedTime(root.resolve("v/1.manifest"), java.nio.file.attribute.FileTime.from(
        java.time.Instant.now().minus(java.time.Duration.ofHours(2))));

    assertThat(store.removeAbandonedStagedPuts("v", java.time.Instant.now().minus(java.time.Duration.ofHours(1))))
        .isEqualTo(1);
    assertThat(old).doesNotExist();
    live.create(); // the one staged a moment ago is untouched
    assertThat(store.list("v")).extracting(ObjectInfo::key).containsExactly("v/1.manifest", "v/2.manifest");
    assertThat(store.removeAbandonedStagedPuts("nothing/here", java.time.Instant.now())).isZero();
  }

  @Test
  void temporaryFilesOfInFlightWritesAreInvisibleToListings() throws IOException {
    LocalObjectStore store = new LocalObjectStore(root);
    store.put("d/visible", "v".getBytes(UTF_8));
    Files.writeString(root.resolve("d/.tmp-in-flight"), "partial");

    assertThat(store.list("d")).extracting(ObjectInfo::key).containsExactly("d/visible");
    assertThat(store.listDirectory("d")).containsExactly("visible");
  }

  @Test
  void keysCannotEscapeTheRoot() {
    LocalObjectStore store = new LocalObjectStore(root.resolve("inner"));

    assertThatThrownBy(() -> store.put("../outside", new byte[1])).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store.list("a/../..")).isInstanceOf(IllegalArgumentException.class);
    assertThat(Files.exists(root.resolve("outside"))).isFalse();
  }

  @Test
  void rootMustBeAbsolute() {
    assertThatThrownBy(() -> new LocalObjectStore(Path.of("relative/dir")))
        .isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("absolute");
  }

  @Test
  void aFileInTheWayOfADirectoryIsADefiniteFailureNotAnOutage() {
    LocalObjectStore store = new LocalObjectStore(root);
    store.put("file", new byte[1]);

    assertThatThrownBy(() -> store.put("file/child", new byte[1]))
        .isInstanceOf(StoreException.class)
        .isNotInstanceOf(StoreUnavailableException.class);
    assertThat(store.get("file/child")).isEmpty();
  }

  @Test
  void withoutHardLinksPutIfAbsentStillHasExactlyOneWinner() throws Exception {
    LocalObjectStore store = new LocalObjectStore(root, false);
    store.putIfAbsent("x/once", "first".getBytes(UTF_8));
    assertThatThrownBy(() -> store.putIfAbsent("x/once", "second".getBytes(UTF_8)))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(store.get("x/once")).hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo("first"));

    ExecutorService pool = Executors.newFixedThreadPool(8);
    try {
      for (int round = 0; round < 10; round++) {
        String key = "x/race-" + round;
        CountDownLatch start = new CountDownLatch(1);
        List<Future<Boolean>> racers = new ArrayList<>();
        for (int t = 0; t < 8; t++) {
          byte[] data = ("racer " + t).getBytes(UTF_8);
          racers.add(pool.submit(() -> {
            start.await();
            try {
              store.putIfAbsent(key, data);
              return true;
            } catch (ObjectAlreadyExistsException e) {
              return false;
            }
          }));
        }
        start.countDown();
        int winners = 0;
        for (Future<Boolean> racer : racers) {
          winners += racer.get(30, TimeUnit.SECONDS) ? 1 : 0;
        }
        assertThat(winners).as("round %d", round).isEqualTo(1);
      }
    } finally {
      pool.shutdownNow();
    }
  }
}
