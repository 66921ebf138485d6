package dev.lancecommit.rules;

import dev.lancecommit.format.RulesException;

/** A well-formed transaction whose operation this build cannot apply (HTTP 400, code 0). */
public class UnsupportedOperationTypeException extends RulesException {
  private final String operation;
  private final String reason;

  public UnsupportedOperationTypeException(String operation) {
    super("Operation " + operation + " is not supported by this coordinator");
    this.operation = operation;
    this.reason = null;
  }

  /** An operation refused for a stated reason (a deliberate choice, not a gap). */
  public UnsupportedOperationTypeException(String operation, String reason) {
    super("Operation " + operation + " is not supported by this coordinator: " + reason);
    this.operation = operation;
    this.reason = reason;
  }

  public java.util.Optional<String> reason() {
    return java.util.Optional.ofNullable(reason);
  }

  public String operation() {
    return operation;
  }
}
