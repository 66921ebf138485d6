package dev.lancecommit.events.consumer;

import java.util.Map;
import java.util.OptionalLong;

/**
 * The highest commit version delivered to a handler, per table uuid. A version is recorded only after the handler
 * returned, so on restart everything at or below the checkpoint is dropped as a duplicate.
 *
 * <p>Implementations must be safe for use from several threads and must make {@link #advance} durable before it
 * returns (a store that loses an advance redelivers that version after a restart; it never skips one).
 */
public interface TableCheckpointStore extends AutoCloseable {

  /** The highest version delivered for {@code tableUuid}, empty if none was. */
  OptionalLong checkpoint(String tableUuid);

  /**
   * Records {@code version} as delivered for {@code tableUuid}.
   *
   * @throws IllegalArgumentException if {@code version} is not above the current checkpoint (checkpoints never move
   *     backwards) or below 1
   * @throws java.io.UncheckedIOException if the store could not persist it; the checkpoint is then unchanged
   */
  void advance(String tableUuid, long version);

  /** A snapshot of every checkpoint. */
  Map<String, Long> checkpoints();

  @Override
  default void close() {}

  /** Checks the arguments of {@link #advance} against the current checkpoint; for implementations. */
  static void checkAdvance(String tableUuid, long version, OptionalLong current) {
    if (tableUuid == null || tableUuid.isBlank()) {
      throw new IllegalArgumentException("table uuid must be non-blank");
    }
    if (version < 1) {
      throw new IllegalArgumentException("a checkpoint version must be >= 1, got " + version);
    }
    if (current.isPresent() && version <= current.getAsLong()) {
      throw new IllegalArgumentException(
          "checkpoint of table " + tableUuid + " is " + current.getAsLong() + "; it cannot move to " + version);
    }
  }
}
