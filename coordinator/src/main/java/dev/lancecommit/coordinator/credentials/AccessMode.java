package dev.lancecommit.coordinator.credentials;

/** What vended credentials may do under a table's location. */
public enum AccessMode {
  /** Get and list the table's objects. */
  READ,
  /**
   * Also put and delete data files, deletion files, indices, transaction files and staged manifests; never the
   * final {@code *.manifest} names, which only the coordinator writes.
   */
  READ_WRITE
}
