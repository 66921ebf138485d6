package dev.lancecommit.rules;

import dev.lancecommit.format.RulesException;

/** The transaction is malformed or cannot apply to the table as it is (HTTP 400, code 13). */
public class InvalidTransactionException extends RulesException {
  public InvalidTransactionException(String message) {
    super(message);
  }

  public InvalidTransactionException(String message, Throwable cause) {
    super(message, cause);
  }
}
