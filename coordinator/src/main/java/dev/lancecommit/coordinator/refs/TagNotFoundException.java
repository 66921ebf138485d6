package dev.lancecommit.coordinator.refs;

/** No tag of that name (HTTP 404, code 8: TableTagNotFound). */
public class TagNotFoundException extends RefException {
  public TagNotFoundException(String table, String tag) {
    super("Table " + table + " has no tag '" + tag + "'");
  }
}
