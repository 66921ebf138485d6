package dev.lancecommit.coordinator.storage;

import dev.lancecommit.testing.ForwardingObjectStore;
import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/** The {@link ObjectStore} contract; every implementation runs it through a subclass. */
abstract class ObjectStoreContractTest {
  private static final int RACERS = 16;
  private static final int ROUNDS = 20;

  private String base;
  private ExecutorService pool;

  /** The store under test; the subclass owns its lifecycle. */
  protected abstract ObjectStore store();

  @BeforeEach
  void uniqueBase() {
    base = "contract-" + UUID.randomUUID();
    pool = Executors.newFixedThreadPool(RACERS);
  }

  @AfterEach
  void stopPool() throws InterruptedException {
    pool.shutdownNow();
    assertThat(pool.awaitTermination(30, TimeUnit.SECONDS)).isTrue();
  }

  private String key(String relative) {
    return base + "/" + relative;
  }

  private static byte[] bytes(String s) {
    return s.getBytes(UTF_8);
  }

  @Test
  void getAndHeadOfAbsentKeyAreEmpty() {
    assertThat(store().get(key("missing"))).isEmpty();
    assertThat(store().head(key("missing"))).isEmpty();
    assertThat(store().get(key("missing/deeper/still"))).isEmpty();
  }

  @Test
  void putThenGetReturnsTheBytesAndPutOverwrites() {
    store().put(key("a/b.bin"), bytes("first"));
    assertThat(store().get(key("a/b.bin"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("first")));

    store().put(key("a/b.bin"), bytes("second, longer"));
    assertThat(store().get(key("a/b.bin")))
        .hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("second, longer")));
  }

  @Test
  void tailAndRangeReadOnlyWhatIsAsked() {
    store().put(key("t.bin"), bytes("0123456789"));
    assertThat(store().getTail(key("t.bin"), 4)).hasValueSatisfying(tail -> {
      assertThat(tail.bytes()).isEqualTo(bytes("6789"));
      assertThat(tail.size()).isEqualTo(10);
    });
    assertThat(store().getTail(key("t.bin"), 64)).hasValueSatisfying(tail -> {
      assertThat(tail.bytes()).isEqualTo(bytes("0123456789"));
      assertThat(tail.size()).isEqualTo(10);
    });
    assertThat(store().getRange(key("t.bin"), 2, 3)).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("234")));
    assertThat(store().getRange(key("t.bin"), 8, 10)).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("89")));
    assertThat(store().getTail(key("missing"), 4)).isEmpty();
    assertThat(store().getRange(key("missing"), 0, 4)).isEmpty();

    store().put(key("empty-tail"), new byte[0]);
    assertThat(store().getTail(key("empty-tail"), 4)).hasValueSatisfying(tail -> {
      assertThat(tail.bytes()).isEmpty();
      assertThat(tail.size()).isZero();
    });
  }

  @Test
  void emptyObjectRoundTrips() {
    store().put(key("empty"), new byte[0]);
    assertThat(store().get(key("empty"))).hasValueSatisfying(v -> assertThat(v).isEmpty());
    assertThat(store().head(key("empty"))).hasValueSatisfying(i -> assertThat(i.size()).isZero());
  }

  @Test
  void headReportsKeySizeAndModificationTime() {
    Instant before = Instant.now().minus(1, ChronoUnit.MINUTES);
    store().put(key("h/obj"), new byte[1234]);

    Optional<ObjectInfo> info = store().head(key("h/obj"));

    assertThat(info).isPresent();
    assertThat(info.get().key()).isEqualTo(key("h/obj"));
    assertThat(info.get().size()).isEqualTo(1234);
    assertThat(info.get().lastModified()).isAfter(before).isBefore(Instant.now().plus(1, ChronoUnit.MINUTES));
  }

  @Test
  void listReturnsEveryObjectUnderThePrefixRecursivelyAndSorted() {
    for (String k : List.of("t/b/2", "t/a", "t/c/d/e", "t/b/1", "tx/not-under-t", "t0")) {
      store().put(key(k), bytes(k + "!"));
    }

    List<ObjectInfo> listed = store().list(key("t"));

    assertThat(listed).extracting(ObjectInfo::key)
        .containsExactly(key("t/a"), key("t/b/1"), key("t/b/2"), key("t/c/d/e"));
    assertThat(listed).extracting(ObjectInfo::size).containsExactly(4L, 6L, 6L, 8L);
    assertThat(store().list(key("t") + "/")).isEqualTo(listed);
    assertThat(store().list(key("t/b"))).extracting(ObjectInfo::key).containsExactly(key("t/b/1"), key("t/b/2"));
    assertThat(store().list(base)).hasSize(6);
  }

  @Test
  void listFirstReturnsTheFirstKeysInOrder() {
    for (String k : List.of("t/b/2", "t/a", "t/c/d/e", "t/b/1", "tx/not-under-t", "t0")) {
      store().put(key(k), bytes(k + "!"));
    }

    assertThat(store().listFirst(key("t"), 2)).extracting(ObjectInfo::key).containsExactly(key("t/a"), key("t/b/1"));
    assertThat(store().listFirst(key("t"), 2)).extracting(ObjectInfo::size).containsExactly(4L, 6L);
    assertThat(store().listFirst(key("t"), 10)).isEqualTo(store().list(key("t")));
    assertThat(store().listFirst(key("nothing-here"), 3)).isEmpty();
  }

  @Test
  void listOfAbsentPrefixOrOfAnObjectIsEmpty() {
    store().put(key("only"), bytes("x"));
    assertThat(store().list(key("nothing-here"))).isEmpty();
    assertThat(store().list(key("only"))).isEmpty();
  }

  @Test
  void listDirectoryReturnsImmediateChildNamesSorted() {
    for (String k : List.of("d/z.txt", "d/sub/x", "d/sub/deeper/y", "d/a.txt", "d/b/c", "dx/other")) {
      store().put(key(k), bytes(k));
    }

    assertThat(store().listDirectory(key("d"))).containsExactly("a.txt", "b", "sub", "z.txt");
    assertThat(store().listDirectory(key("d") + "/")).containsExactly("a.txt", "b", "sub", "z.txt");
    assertThat(store().listDirectory(key("d/sub"))).containsExactly("deeper", "x");
    assertThat(store().listDirectory(base)).containsExactly("d", "dx");
    assertThat(store().listDirectory(key("absent"))).isEmpty();
  }

  @Test
  void deleteRemovesTheObjectAndIgnoresAbsentKeys() {
    store().put(key("del/one"), bytes("1"));
    store().put(key("del/two"), bytes("2"));

    store().delete(key("del/one"));
    store().delete(key("del/one"));
    store().delete(key("del/never-existed"));

    assertThat(store().get(key("del/one"))).isEmpty();
    assertThat(store().head(key("del/one"))).isEmpty();
    assertThat(store().list(key("del"))).extracting(ObjectInfo::key).containsExactly(key("del/two"));
  }

  @Test
  void putIfAbsentCreatesOnceAndThenRefusesWithoutChangingTheObject() {
    store().putIfAbsent(key("once/obj"), bytes("winner"));

    assertThatThrownBy(() -> store().putIfAbsent(key("once/obj"), bytes("loser")))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(store().get(key("once/obj"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("winner")));
  }

  @Test
  void aStagedPutIfAbsentCreatesItsKeyOnlyWhenCreatedAndNothingWhenDiscarded() {
    StagedPut staged = store().stagePutIfAbsent(key("staged/1"), bytes("one"));
    assertThat(store().head(key("staged/1"))).isEmpty();
    assertThat(store().list(key("staged"))).isEmpty();
    staged.create();
    assertThat(store().get(key("staged/1"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("one")));
    staged.discard(); // after the create: nothing to remove, the object stays
    assertThat(store().head(key("staged/1"))).isPresent();

    StagedPut dropped = store().stagePutIfAbsent(key("staged/2"), bytes("two"));
    dropped.discard();
    dropped.discard();
    assertThat(store().list(key("staged"))).extracting(ObjectInfo::key).containsExactly(key("staged/1"));
  }

  @Test
  void aStagedPutIfAbsentLosesToTheKeyCreatedMeanwhileAndChangesNothing() {
    StagedPut mine = store().stagePutIfAbsent(key("raced"), bytes("mine"));
    store().putIfAbsent(key("raced"), bytes("theirs"));
    assertThatThrownBy(mine::create).isInstanceOf(ObjectAlreadyExistsException.class);
    mine.discard();
    assertThat(store().get(key("raced"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("theirs")));
  }

  @Test
  void putIfAbsentRefusesAKeyWrittenByPut() {
    store().put(key("plain"), bytes("plain"));

    assertThatThrownBy(() -> store().putIfAbsent(key("plain"), bytes("other")))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(store().get(key("plain"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("plain")));
  }

  @Test
  void putIfAbsentSucceedsAgainAfterDelete() {
    store().putIfAbsent(key("recycled"), bytes("1"));
    store().delete(key("recycled"));
    store().putIfAbsent(key("recycled"), bytes("2"));
    assertThat(store().get(key("recycled"))).hasValueSatisfying(v -> assertThat(v).isEqualTo(bytes("2")));
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/leading", "trailing/", "a//b", "a/../b", "./a", "a/.tmp-x", ".tmp-y"})
  void invalidKeysAreRejectedBeforeTouchingTheStore(String bad) {
    assertThatThrownBy(() -> store().put(bad, bytes("x"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().putIfAbsent(bad, bytes("x"))).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> store().get(bad)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void exactlyOneOfSixteenConcurrentPutIfAbsentWinsEveryRound() throws Exception {
    for (int round = 0; round < ROUNDS; round++) {
      String raceKey = key("race/" + round);
      CountDownLatch start = new CountDownLatch(1);
      List<Future<Boolean>> racers = new ArrayList<>();
      for (int t = 0; t < RACERS; t++) {
        byte[] payload = bytes("round " + round + " racer " + t);
        racers.add(pool.submit(() -> {
          start.await();
          try {
            store().putIfAbsent(raceKey, payload);
            return true;
          } catch (ObjectAlreadyExistsException lost) {
            return false;
          }
        }));
      }
      start.countDown();

      List<Integer> winners = new ArrayList<>();
      for (int t = 0; t < RACERS; t++) {
        if (racers.get(t).get(60, TimeUnit.SECONDS)) {
          winners.add(t);
        }
      }
      assertThat(winners).as("winners of round %d", round).hasSize(1);
      String expected = "round " + round + " racer " + winners.get(0);
      assertThat(store().get(raceKey)).hasValueSatisfying(v -> assertThat(new String(v, UTF_8)).isEqualTo(expected));
    }
  }

  @Test
  void readersNeverSeeAPartialObject() throws Exception {
    int size = 1 << 20;
    int writes = 12;
    String overwritten = key("partial/overwritten");
    AtomicReference<String> watched = new AtomicReference<>(overwritten);
    AtomicBoolean writing = new AtomicBoolean(true);
    List<String> violations = new ArrayList<>();

    Future<Integer> reader = pool.submit(() -> {
      int reads = 0;
      while (writing.get()) {
        String k = watched.get();
        Optional<byte[]> seen = store().get(k);
        reads++;
        seen.ifPresent(v -> {
          if (v.length != size || !uniform(v)) {
            synchronized (violations) {
              violations.add(k + ": " + v.length + " bytes, uniform=" + uniform(v));
            }
          }
        });
      }
      return reads;
    });
    try {
      for (int i = 1; i <= writes; i++) {
        store().put(overwritten, filled(size, i));
      }
      for (int i = 1; i <= writes; i++) {
        String fresh = key("partial/created-" + i);
        watched.set(fresh);
        store().putIfAbsent(fresh, filled(size, i));
      }
    } finally {
      writing.set(false);
    }

    assertThat(reader.get(60, TimeUnit.SECONDS)).isPositive();
    assertThat(violations).isEmpty();
    assertThat(store().get(overwritten)).hasValueSatisfying(v -> assertThat(v).isEqualTo(filled(size, writes)));
  }

  @Test
  void conditionalPutProbePassesAndCleansUp() {
    ConditionalPutProbe.verify(store(), key("probe"));

    assertThat(store().list(key("probe"))).isEmpty();
  }

  @Test
  void conditionalPutProbeRejectsAStoreWhosePutIfAbsentOverwrites() {
    ObjectStore overwriting = new ForwardingObjectStore(store()) {
      @Override
      public void putIfAbsent(String key, byte[] data) {
        delegate.put(key, data);
      }
    };

    assertThatThrownBy(() -> ConditionalPutProbe.verify(overwriting, key("probe")))
        .isInstanceOf(StoreException.class)
        .isNotInstanceOf(ObjectAlreadyExistsException.class)
        .hasMessageContaining("does not honour If-None-Match")
        .hasMessageContaining("refusing to serve");
    assertThat(store().list(key("probe"))).isEmpty();
  }

  @Test
  void conditionalPutProbeRejectsAStoreThatChecksThenWrites() {
    // Sequential calls behave; concurrent callers all pass the existence check before anyone writes.
    CountDownLatch allChecked = new CountDownLatch(ConditionalPutProbe.RACERS);
    ObjectStore checkThenWrite = new ForwardingObjectStore(store()) {
      @Override
      public void putIfAbsent(String key, byte[] data) {
        if (delegate.head(key).isPresent()) {
          throw new ObjectAlreadyExistsException(key);
        }
        allChecked.countDown();
        try {
          allChecked.await(2, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
        }
        delegate.put(key, data);
      }
    };

    assertThatThrownBy(() -> ConditionalPutProbe.verify(checkThenWrite, key("probe")))
        .isInstanceOf(StoreException.class)
        .hasMessageContaining("concurrent create-only writes")
        .hasMessageContaining("does not honour If-None-Match");
  }

  private static byte[] filled(int size, int value) {
    byte[] data = new byte[size];
    Arrays.fill(data, (byte) value);
    return data;
  }

  private static boolean uniform(byte[] data) {
    for (byte b : data) {
      if (b != data[0]) {
        return false;
      }
    }
    return true;
  }
}
