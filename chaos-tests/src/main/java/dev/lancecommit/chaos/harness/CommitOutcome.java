package dev.lancecommit.chaos.harness;

/**
 * What one CommitTable call told the writer.
 *
 * @param kind how the writer must treat the answer
 * @param version the committed version ({@link Kind#COMMITTED} only)
 * @param status the HTTP status, or -1 when no answer came
 * @param code the error code of an error answer, or -1
 * @param detail the error body or the I/O failure, for the report
 */
public record CommitOutcome(Kind kind, long version, int status, int code, String detail) {

  public enum Kind {
    /** 200: the transaction is the answered version. */
    COMMITTED,
    /** 409/14: definitely not committed; rebuild on a fresh read version. */
    RETRYABLE_CONFLICT,
    /** 429: not taken; send the same transaction again later. */
    THROTTLED,
    /** 503/17, another 5xx, or no answer: it may or may not have landed; resubmit the same transaction. */
    UNKNOWN,
    /** Any other 4xx (400, 404, 409/19): definitely not committed, and not worth retrying. */
    REJECTED
  }

  static CommitOutcome committed(long version) {
    return new CommitOutcome(Kind.COMMITTED, version, 200, -1, "");
  }

  static CommitOutcome noAnswer(String detail) {
    return new CommitOutcome(Kind.UNKNOWN, -1, -1, -1, detail);
  }

  /** The answer's status and code, e.g. {@code 409/14}, or {@code no answer}. */
  public String label() {
    if (status < 0) {
      return "no answer";
    }
    return code < 0 ? Integer.toString(status) : status + "/" + code;
  }
}
