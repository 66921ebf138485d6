package dev.lancecommit.coordinator.namespace;

import java.util.NavigableSet;
import java.util.OptionalLong;
import java.util.TreeSet;

/** The committed versions found in a dataset's {@code _versions/} directory at one moment. */
public final class TableVersions {
  private final NavigableSet<Long> versions;

  TableVersions(NavigableSet<Long> versions) {
    this.versions = new TreeSet<>(versions);
  }

  public OptionalLong latest() {
    return versions.isEmpty() ? OptionalLong.empty() : OptionalLong.of(versions.last());
  }

  public boolean contains(long version) {
    return versions.contains(version);
  }

  public boolean isEmpty() {
    return versions.isEmpty();
  }

  public int size() {
    return versions.size();
  }
}
