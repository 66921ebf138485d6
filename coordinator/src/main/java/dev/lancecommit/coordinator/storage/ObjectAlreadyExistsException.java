package dev.lancecommit.coordinator.storage;

/** A create-only write found the key taken (S3 412 / 409 ConditionalRequestConflict, or the file exists). */
public class ObjectAlreadyExistsException extends StoreException {
  public ObjectAlreadyExistsException(String key) {
    super("Object already exists: " + key);
  }
}
