package dev.lancecommit.chaos.harness;

import java.util.EnumSet;
import java.util.Locale;
import java.util.Set;

/** The kinds of fault the harness injects, as named on the command line ({@code --faults kill,s3,kafka}). */
public enum FaultKind {
  /** kill -9 of the coordinator process, then a restart on the same port and warehouse. */
  KILL("kill"),
  /** The S3 fault proxy: 5xx answers, added latency, stalls past the client timeout, responses dropped after a
   * conditional write landed. */
  S3("s3"),
  /** Kafka broker stop, then start on the same ports and data. */
  KAFKA("kafka"),
  /** With {@code --instances N > 1}: kill -9 of one instance of the cluster, then a restart on its port. */
  INSTANCE_KILL("instance-kill"),
  /**
   * With {@code --instances N > 1}: SIGSTOP of one instance past its group session timeout, then SIGCONT (it has
   * lost its tables meanwhile, and must find out before it writes).
   */
  INSTANCE_PAUSE("instance-pause");

  /** What {@code all} means: the faults of a single coordinator. */
  static final Set<FaultKind> ALL_SINGLE = EnumSet.of(KILL, S3, KAFKA);

  /** Faults that need a cluster ({@code --instances} above 1). */
  static final Set<FaultKind> CLUSTER_ONLY = EnumSet.of(INSTANCE_KILL, INSTANCE_PAUSE);

  private final String option;

  FaultKind(String option) {
    this.option = option;
  }

  public String option() {
    return option;
  }

  /** Parses {@code kill,s3,kafka,instance-kill,instance-pause}, {@code all} (kill, s3, kafka) or {@code none}. */
  public static Set<FaultKind> parseList(String value) {
    String trimmed = value.trim().toLowerCase(Locale.ROOT);
    if (trimmed.equals("none") || trimmed.isEmpty()) {
      return EnumSet.noneOf(FaultKind.class);
    }
    if (trimmed.equals("all")) {
      return EnumSet.copyOf(ALL_SINGLE);
    }
    EnumSet<FaultKind> kinds = EnumSet.noneOf(FaultKind.class);
    for (String part : trimmed.split(",")) {
      String name = part.trim();
      FaultKind kind = null;
      for (FaultKind k : values()) {
        if (k.option.equals(name)) {
          kind = k;
        }
      }
      if (kind == null) {
        throw new IllegalArgumentException("unknown fault '" + name + "': use a comma list of kill, s3, kafka, "
            + "instance-kill, instance-pause, or all, or none");
      }
      kinds.add(kind);
    }
    return kinds;
  }
}
