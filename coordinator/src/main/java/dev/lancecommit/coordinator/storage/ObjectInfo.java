package dev.lancecommit.coordinator.storage;

import java.time.Instant;
import java.util.Objects;

/** Metadata of one stored object. {@code key} is relative to the store root. */
public record ObjectInfo(String key, long size, Instant lastModified) {
  public ObjectInfo {
    Objects.requireNonNull(key, "key");
    Objects.requireNonNull(lastModified, "lastModified");
    if (size < 0) {
      throw new IllegalArgumentException("negative size " + size + " for " + key);
    }
  }
}
