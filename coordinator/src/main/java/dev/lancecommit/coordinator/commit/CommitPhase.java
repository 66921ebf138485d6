package dev.lancecommit.coordinator.commit;

import java.util.Locale;

/** The stretches of a commit's way through its lane, as {@link CommitObserver} times them. */
public enum CommitPhase {
  /** From arrival until the lane takes the commit up. */
  QUEUE_WAIT,
  /** Decoding, validation, loading what was committed since, the conflict rules. */
  CHECKS,
  /** Server-side rebase, building and encoding the next manifest. */
  BUILD,
  /** Checking the files the version adds against the store ({@code commit.verify-files}; absent when off). */
  FILE_CHECKS,
  /** The put-if-absent of the manifest (and its transaction file), settling an unknown outcome. */
  STORAGE_WRITE,
  /** Handing the event to the sink and answering. */
  EVENT_HANDOFF;

  private final String label = name().toLowerCase(Locale.ROOT);

  /** The label value, e.g. {@code storage_write} (made once: every commit's every phase asks for it). */
  public String label() {
    return label;
  }
}
