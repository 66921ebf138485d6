package dev.lancecommit.coordinator.table;

import java.util.OptionalLong;

/**
 * Which versions namespace readers may see. A version in storage is hidden while it belongs to an atomic batch that
 * has not finished (its other members are still being written): DescribeTable, ListTableVersions,
 * DescribeTableVersion and the managed-versioning reads answer as if the table ended before it.
 */
@FunctionalInterface
public interface VersionVisibility {
  /** Every version is visible. */
  VersionVisibility ALL = location -> OptionalLong.empty();

  /** The first hidden version of the table rooted at {@code location}: it and every later one are hidden. */
  OptionalLong hiddenFrom(String location);
}
