package dev.lancecommit.coordinator.storage;

import java.util.Objects;

/**
 * A place inside an object store: the store plus the key of a "directory" in it ({@code ""} for the store root).
 * The store is owned by whoever created it (usually {@link ObjectStores}); closing a location is not a thing.
 */
public record StorageLocation(ObjectStore store, String rootKey) {
  public StorageLocation {
    Objects.requireNonNull(store, "store");
    rootKey = ObjectKeys.normalizePrefix(rootKey);
  }

  /** The store key of {@code relative} (a '/'-separated path below this location; "" is the location itself). */
  public String key(String relative) {
    return ObjectKeys.join(rootKey, relative);
  }

  /** The full URI of {@code relative}, e.g. {@code s3://bucket/warehouse/t1} or {@code /data/warehouse/t1}. */
  public String uri(String relative) {
    return store.uriOf(key(relative));
  }

  /** The full URI of this location. */
  public String uri() {
    return store.uriOf(rootKey);
  }

  /** The location {@code relative} below this one, on the same store. */
  public StorageLocation resolve(String relative) {
    return new StorageLocation(store, key(relative));
  }
}
