package dev.lancecommit.chaos.differential;

/**
 * Which side of a pair an operation instance plays. Each operation is produced twice, independently (its own uuid,
 * its own files, slightly different content where the operation allows), so a pair of the same operation is two
 * concurrent writers, not one transaction sent twice.
 */
public enum Slot {
  FIRST(1_000, "1"),
  SECOND(2_000, "2");

  private final long idBase;
  private final String label;

  Slot(long idBase, String label) {
    this.idBase = idBase;
    this.label = label;
  }

  /** Where new row ids of this slot start, so rows written by the two slots never collide. */
  public long idBase() {
    return idBase;
  }

  public String label() {
    return label;
  }
}
