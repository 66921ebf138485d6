package dev.lancecommit.coordinator.namespace;

import java.util.Optional;

/** The state a table revision records: two live states and three ways of leaving the catalog. */
enum TableStatus {
  DECLARED("declared", TableEntry.State.DECLARED),
  REGISTERED("registered", TableEntry.State.REGISTERED),
  /** Removed from the catalog, data kept; RegisterTable at the same location restores the table uuid. */
  DEREGISTERED("deregistered", null),
  /** Removed from the catalog and its files deleted. */
  DROPPED("dropped", null),
  /** Moved to another identifier (recorded in {@code renamed_to}); data kept at the same location. */
  RENAMED("renamed", null);

  private final String wireName;
  private final TableEntry.State liveState;

  TableStatus(String wireName, TableEntry.State liveState) {
    this.wireName = wireName;
    this.liveState = liveState;
  }

  String wireName() {
    return wireName;
  }

  Optional<TableEntry.State> liveState() {
    return Optional.ofNullable(liveState);
  }

  boolean isLive() {
    return liveState != null;
  }

  static TableStatus of(TableEntry.State state) {
    return state == TableEntry.State.DECLARED ? DECLARED : REGISTERED;
  }

  static TableStatus fromWireName(String name) {
    for (TableStatus status : values()) {
      if (status.wireName.equals(name)) {
        return status;
      }
    }
    throw new IllegalArgumentException("Unknown table state '" + name + "'");
  }
}
