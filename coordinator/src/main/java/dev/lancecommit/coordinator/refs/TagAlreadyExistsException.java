package dev.lancecommit.coordinator.refs;

/** A tag of that name exists (HTTP 409, code 9: TableTagAlreadyExists). */
public class TagAlreadyExistsException extends RefException {
  public TagAlreadyExistsException(String table, String tag) {
    super("Table " + table + " already has a tag '" + tag + "'; update it instead");
  }
}
