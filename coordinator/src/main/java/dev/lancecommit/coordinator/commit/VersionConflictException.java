package dev.lancecommit.coordinator.commit;

/**
 * The version a request asks for does not follow the table's latest one, or the table moved on while the request
 * was prepared: HTTP 409, code 14 (retry on the latest version). Nothing was written.
 */
public class VersionConflictException extends RuntimeException {
  private final String detail;

  /**
   * @param error what conflicts, in a line
   * @param detail what the caller can do about it
   */
  public VersionConflictException(String error, String detail) {
    super(error);
    this.detail = detail;
  }

  public String detail() {
    return detail;
  }
}
