package dev.lancecommit.format.deletion;

import dev.lancecommit.format.RulesException;

/**
 * The bytes of a deletion file are not what Lance writes or accepts: not an Arrow IPC file with exactly one record
 * batch of one non-null UInt32 column {@code row_id}, or not a portable 32-bit Roaring bitmap. The table (not the
 * caller's request) is at fault, so retrying the same request cannot help.
 */
public class CorruptDeletionFileException extends RulesException {
  public CorruptDeletionFileException(String message) {
    super(message);
  }

  public CorruptDeletionFileException(String message, Throwable cause) {
    super(message, cause);
  }
}
