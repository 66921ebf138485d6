package dev.lancecommit.chaos.harness;

/** The Lance operations the writers commit, with the share of the writers' choices each one gets. */
public enum OperationType {
  CREATE("Overwrite", 0),
  APPEND("Append", 48),
  DELETE("Delete", 18),
  UPDATE("Update", 14),
  REWRITE("Rewrite", 10),
  CREATE_INDEX("CreateIndex", 10);

  private final String lanceName;
  private final int weight;

  OperationType(String lanceName, int weight) {
    this.lanceName = lanceName;
    this.weight = weight;
  }

  public String lanceName() {
    return lanceName;
  }

  int weight() {
    return weight;
  }

  /** A writer's next operation, by the weights above. */
  static OperationType pick(java.util.Random random) {
    int total = 0;
    for (OperationType t : values()) {
      total += t.weight;
    }
    int r = random.nextInt(total);
    for (OperationType t : values()) {
      if (r < t.weight) {
        return t;
      }
      r -= t.weight;
    }
    throw new IllegalStateException("unreachable");
  }
}
