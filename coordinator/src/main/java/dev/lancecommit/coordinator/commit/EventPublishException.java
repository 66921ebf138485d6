package dev.lancecommit.coordinator.commit;

/**
 * The manifest landed but its event could not be published (HTTP 503, code 17). Resubmitting the same transaction
 * returns the committed version and publishes the event again; consumers drop the duplicate by event id.
 */
public class EventPublishException extends RuntimeException {
  private final long version;

  public EventPublishException(long version, String message, Throwable cause) {
    super(message, cause);
    this.version = version;
  }

  public long version() {
    return version;
  }
}
