package dev.lancecommit.rules;

/** A well-formed transaction whose operation this build cannot apply (HTTP 400, code 0). */
public class UnsupportedOperationTypeException extends RulesException {
  private final String operation;

  public UnsupportedOperationTypeException(String operation) {
    super("Operation " + operation + " is not supported by this coordinator");
    this.operation = operation;
  }

  public String operation() {
    return operation;
  }
}
