package dev.lancecommit.rules;

import dev.lancecommit.format.RulesException;

/** The commit breaks the table's schema contract; the message names the field path (HTTP 400, code 20). */
public class SchemaContractException extends RulesException {
  private final String fieldPath;

  public SchemaContractException(String fieldPath, String message) {
    super(message);
    this.fieldPath = fieldPath;
  }

  public String fieldPath() {
    return fieldPath;
  }
}
