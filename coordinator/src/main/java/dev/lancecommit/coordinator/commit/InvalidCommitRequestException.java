package dev.lancecommit.coordinator.commit;

/**
 * A request the commit service refuses before any commit starts, because what it names cannot be committed as it is
 * (a staged manifest that is missing or unreadable, a table with no version to upgrade): HTTP 400, code 13.
 * Nothing was written.
 */
public class InvalidCommitRequestException extends RuntimeException {
  private final String detail;

  /**
   * @param error what is wrong, in a line
   * @param detail what the caller can do about it
   */
  public InvalidCommitRequestException(String error, String detail) {
    super(error);
    this.detail = detail;
  }

  public String detail() {
    return detail;
  }
}
