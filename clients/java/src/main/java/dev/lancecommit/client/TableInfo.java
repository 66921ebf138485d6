package dev.lancecommit.client;

import java.util.Map;
import java.util.Objects;
import java.util.OptionalLong;

/**
 * Where a table lives and how to reach it: the answer of DeclareTable and DescribeTable.
 *
 * @param id the table
 * @param location the table's root URI (a local path or {@code s3://bucket/prefix/name.lance}); pass it to Lance as
 *     the dataset URI
 * @param storageOptions vended storage options (credentials, endpoint, region), ready for Lance's
 *     {@code storageOptions(...)} / {@code WriteParams}; empty when the coordinator vends nothing
 * @param version the latest committed version, empty for a declared table nothing has been committed to yet
 */
public record TableInfo(TableId id, String location, Map<String, String> storageOptions, OptionalLong version) {
  public TableInfo {
    Objects.requireNonNull(id, "id");
    Objects.requireNonNull(location, "location");
    storageOptions = Map.copyOf(storageOptions);
    Objects.requireNonNull(version, "version");
  }
}
