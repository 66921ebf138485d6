package dev.lancecommit.events;

/** An event was not acknowledged. The event may still have been delivered (at-least-once semantics). */
public class CommitEventPublishException extends RuntimeException {
  private final String eventId;

  public CommitEventPublishException(String eventId, String message, Throwable cause) {
    super(message, cause);
    this.eventId = eventId;
  }

  /** The id of the event that was not acknowledged ({@code tableUuid:version}). */
  public String eventId() {
    return eventId;
  }
}
