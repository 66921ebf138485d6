package dev.lancecommit.coordinator.table;

import java.util.List;

/**
 * What the commit path needs to know about a catalogued table.
 *
 * @param id the identifier parts, namespace first, table name last
 * @param location the table root URI ({@code s3://bucket/prefix/t.lance} or an absolute local path)
 * @param tableUuid a stable uuid the catalog gave the table; commit event ids are {@code tableUuid:version}
 */
public record TableRef(List<String> id, String location, String tableUuid) {
  public TableRef {
    id = List.copyOf(id);
  }

  /** The identifier joined with the spec's default delimiter, used as the Kafka key. */
  public String joinedId() {
    return String.join("$", id);
  }
}
