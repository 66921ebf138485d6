package dev.lancecommit.events;

/** A table event was not acknowledged. It may still have been delivered. */
public class TableEventPublishException extends RuntimeException {
  private final String eventId;

  public TableEventPublishException(String eventId, String message, Throwable cause) {
    super(message, cause);
    this.eventId = eventId;
  }

  /** The id of the event that was not acknowledged ({@code tableUuid:type:epochMillis}). */
  public String eventId() {
    return eventId;
  }
}
