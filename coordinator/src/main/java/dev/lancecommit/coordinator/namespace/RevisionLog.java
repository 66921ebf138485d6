package dev.lancecommit.coordinator.namespace;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import java.time.Clock;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The append-only revision logs of one kind of catalog document (namespaces, tables, location claims). An entry is a
 * directory of immutable revisions {@code v{revision, 20 digits}.json} ({@link CatalogLayout#revisionName}); the
 * highest is its state. A revision is written once with put-if-absent and never replaced or deleted, so parsed
 * revisions are cached by key for good; only the listing that finds the newest revision goes to the store every time.
 *
 * <p>{@link #mutate} is the one way entries change: read the newest revision, apply the change, write the result as
 * the next revision with put-if-absent, and start over on a fresh read when another writer took that revision first.
 * So of two writers of one entry exactly one creates each revision, and no update is lost.
 */
final class RevisionLog<T> {
  /** How often {@link #mutate} re-reads and retries before giving up with a concurrent-update error. */
  static final int MAX_UPDATE_ATTEMPTS = 16;
  private static final Logger LOG = LoggerFactory.getLogger(RevisionLog.class);

  /** How a document is written and read back. */
  interface Codec<T> {
    byte[] encode(T value, long revision);

    T decode(String key, byte[] data);
  }

  /**
   * Runs just before {@link #mutate} writes {@code next} as revision {@code revision} over {@code current}, and may
   * refuse by throwing. The returned action takes back whatever it did when the write is lost to another writer (the
   * change is then re-applied to the newer revision and the guard runs again). Throwing {@link RevisionTaken} says
   * the revision is as good as lost: the change is re-applied to a fresh read.
   */
  interface WriteGuard<T> {
    Runnable beforeWrite(Optional<T> current, T next, long revision);
  }

  /** Thrown by a {@link WriteGuard}: another writer is about to take (or took) the revision; read again. */
  static final class RevisionTaken extends RuntimeException {
    RevisionTaken(String message) {
      super(message, null, false, false);
    }
  }

  /** What one {@code mutate} call did: the newest revision before, and the one written (or kept). */
  record Mutation<T>(Optional<T> before, T after, boolean written, boolean created) {}

  /** One revision of an entry. */
  record Revision<T>(long number, T value) {}

  private final ObjectStore store;
  private final Codec<T> codec;
  private final BiFunction<T, Instant, T> stamp;
  private final Predicate<T> live;
  private final Clock clock;
  private final Cache<String, T> revisions = Caffeine.newBuilder().maximumSize(200_000).build();

  /**
   * @param stamp gives a document about to be written its write time and a fresh random revision id
   * @param live whether a document counts as existing (for {@link Mutation#created})
   */
  RevisionLog(ObjectStore store, Codec<T> codec, BiFunction<T, Instant, T> stamp, Predicate<T> live, Clock clock) {
    this.store = store;
    this.codec = codec;
    this.stamp = stamp;
    this.live = live;
    this.clock = clock;
  }

  /** The highest revision in {@code dir} and its content; empty for an entry that never existed. */
  Optional<Revision<T>> latest(String dir) {
    OptionalLong newest = OptionalLong.empty();
    for (String name : store.listDirectory(dir)) {
      OptionalLong revision = CatalogLayout.parseRevision(name);
      if (revision.isPresent() && (newest.isEmpty() || revision.getAsLong() > newest.getAsLong())) {
        newest = revision;
      }
    }
    if (newest.isEmpty()) {
      return Optional.empty();
    }
    return Optional.of(read(dir, newest.getAsLong()));
  }

  Revision<T> read(String dir, long revision) {
    String key = CatalogLayout.revisionKey(dir, revision);
    T value = revisions.get(key, k -> codec.decode(k, store.get(k).orElseThrow(() ->
        new IllegalStateException("Catalog revision " + k + " was listed but cannot be read"))));
    return new Revision<>(revision, value);
  }

  /**
   * Creates revision {@code revision} of {@code dir} with {@code value} as it is (not stamped). When the store cannot
   * say whether the write landed, reading the key back decides: our own bytes mean it did, other bytes mean someone
   * else won.
   *
   * @throws ObjectAlreadyExistsException another writer created this revision first
   */
  void append(String dir, long revision, T value) {
    String key = CatalogLayout.revisionKey(dir, revision);
    byte[] data = codec.encode(value, revision);
    try {
      store.putIfAbsent(key, data);
    } catch (StoreOutcomeUnknownException unknown) {
      Optional<byte[]> current = store.get(key);
      if (current.isEmpty()) {
        throw unknown;
      }
      if (!Arrays.equals(current.get(), data)) {
        throw new ObjectAlreadyExistsException(key);
      }
    }
    revisions.put(key, value);
  }

  /** Stamps {@code value} and creates it as revision {@code revision}; returns what was written. */
  T appendStamped(String dir, long revision, T value) {
    T next = stamp.apply(value, now());
    append(dir, revision, next);
    return next;
  }

  /** {@link #mutate} without a guard. */
  Mutation<T> mutate(String dir, String display, Function<Optional<T>, T> change) {
    return mutate(dir, display, change, (current, next, revision) -> () -> { });
  }

  /**
   * Applies {@code change} to the newest revision and writes the result as the next one. {@code change} throws to
   * refuse, returns its argument unchanged (or null when there is none) to write nothing, or returns the new content.
   * Re-run on a fresh read when another writer took the revision first, at most {@value #MAX_UPDATE_ATTEMPTS} times.
   *
   * @throws CatalogConcurrentUpdateException every attempt lost its revision to another writer
   */
  Mutation<T> mutate(String dir, String display, Function<Optional<T>, T> change, WriteGuard<T> guard) {
    for (int attempt = 1; ; attempt++) {
      Optional<Revision<T>> newest = latest(dir);
      Optional<T> current = newest.map(Revision::value);
      T proposed = change.apply(current);
      long revision = newest.map(r -> r.number() + 1).orElse(1L);
      if (proposed == null || current.isPresent() && proposed == current.get()) {
        return new Mutation<>(current, current.orElse(null), false, false);
      }
      T next = stamp.apply(proposed, now());
      Runnable takeBack = () -> { };
      try {
        takeBack = guard.beforeWrite(current, next, revision);
        append(dir, revision, next);
        boolean created = live.test(next) && current.map(c -> !live.test(c)).orElse(true);
        return new Mutation<>(current, next, true, created);
      } catch (StoreUnavailableException notWritten) {
        takeBack.run();
        throw notWritten;
      } catch (ObjectAlreadyExistsException | RevisionTaken raced) {
        takeBack.run();
        if (attempt >= MAX_UPDATE_ATTEMPTS) {
          throw new CatalogConcurrentUpdateException("Catalog entry " + display + " changed " + attempt
              + " times while this request tried to update it; nothing was changed, retry");
        }
        LOG.debug("Revision {} of {} was taken by another writer; re-reading", revision, display);
      }
    }
  }

  Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}
