package dev.lancecommit.rules;

import dev.lancecommit.format.RulesException;

/** A field path names no field of the table's schema (HTTP 404, code 12 TableColumnNotFound). */
public class ColumnNotFoundException extends RulesException {
  private final String fieldPath;

  public ColumnNotFoundException(String fieldPath, String message) {
    super(message);
    this.fieldPath = fieldPath;
  }

  public String fieldPath() {
    return fieldPath;
  }
}
