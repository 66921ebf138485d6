package dev.lancecommit.coordinator.namespace;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import java.util.Arrays;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.BiFunction;

/**
 * Reads and appends the revisions of catalog entries of one kind. A revision object is written once with
 * put-if-absent and never replaced or deleted, so parsed revisions are cached by key for good; only the listing
 * that finds the newest revision goes to the store every time.
 */
final class RevisionLog<T> {
  private final ObjectStore store;
  private final CatalogLayout layout;
  private final BiFunction<String, byte[], T> parser;
  private final Cache<String, T> revisions = Caffeine.newBuilder().maximumSize(200_000).build();

  RevisionLog(ObjectStore store, CatalogLayout layout, BiFunction<String, byte[], T> parser) {
    this.store = store;
    this.layout = layout;
    this.parser = parser;
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
    String key = layout.revisionKey(dir, revision);
    T value = revisions.get(key, k -> parser.apply(k, store.get(k).orElseThrow(() ->
        new IllegalStateException("Catalog revision " + k + " was listed but cannot be read"))));
    return new Revision<>(revision, value);
  }

  /**
   * Creates revision {@code revision} of {@code dir}. When the store cannot say whether the write landed, reading
   * the key back decides: our own bytes mean it did, other bytes mean someone else won.
   *
   * @throws ObjectAlreadyExistsException another writer created this revision first
   */
  void append(String dir, long revision, byte[] data, T value) {
    String key = layout.revisionKey(dir, revision);
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

  /** One revision of an entry. */
  record Revision<T>(long number, T value) {}
}
