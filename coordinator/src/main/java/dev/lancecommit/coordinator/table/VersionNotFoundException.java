package dev.lancecommit.coordinator.table;

/** The table (or branch) has no manifest for the version asked for (HTTP 404, code 11: TableVersionNotFound). */
public class VersionNotFoundException extends RuntimeException {
  public VersionNotFoundException(String table, long version) {
    super("Table " + table + " has no version " + version);
  }

  /** With its own message, e.g. for a table that has no version at all. */
  public VersionNotFoundException(String message) {
    super(message);
  }
}
