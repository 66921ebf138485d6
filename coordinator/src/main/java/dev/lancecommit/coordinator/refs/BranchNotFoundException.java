package dev.lancecommit.coordinator.refs;

/** No branch of that name (HTTP 404, code 22: TableBranchNotFound). */
public class BranchNotFoundException extends RefException {
  public BranchNotFoundException(String table, String branch) {
    super("Table " + table + " has no branch '" + branch + "'");
  }
}
