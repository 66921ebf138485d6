package dev.lancecommit.coordinator.refs;

/** A branch of that name exists (HTTP 409, code 23: TableBranchAlreadyExists). */
public class BranchAlreadyExistsException extends RefException {
  public BranchAlreadyExistsException(String table, String branch) {
    super("Table " + table + " already has a branch '" + branch + "'");
  }
}
