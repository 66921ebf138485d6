package dev.lancecommit.format;


/**
 * Bytes or names read from a table that cannot be what Lance wrote: a manifest file whose footer, length prefix or
 * protobuf is broken, a transaction file that is not a Transaction, or a {@code _versions/} directory mixing the V1
 * and V2 naming schemes. The table (not the caller's request) is at fault, so retrying the same request cannot help.
 */
public class CorruptManifestException extends RulesException {
  public CorruptManifestException(String message) {
    super(message);
  }

  public CorruptManifestException(String message, Throwable cause) {
    super(message, cause);
  }
}
