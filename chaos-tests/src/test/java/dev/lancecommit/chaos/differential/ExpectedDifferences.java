package dev.lancecommit.chaos.differential;

import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * The reviewed list of pairs where the coordinator deliberately answers differently from stock Lance 7.0.0, each
 * with its reason. Only entries here may differ; an entry that no longer matches what happens fails the suite as
 * stale, so the list cannot silently outlive the behaviour it excuses.
 *
 * <p>{@code first} / {@code second} of {@code null} match any operation; {@code second} of {@link #ALONE} matches
 * the operation committed alone.
 */
public final class ExpectedDifferences {

  /** Marker for "no second operation" in {@link Entry#second}. */
  public static final String ALONE = "ALONE";

  /** Why the coordinator differs. */
  public enum Cause {
    /** The coordinator does not apply this operation yet (400/0). */
    NOT_APPLIED_YET,
    /** SPEC.md makes the coordinator stricter than Lance 7.0.0 (e.g. a 2026 rule). */
    STRICTER_PER_SPEC,
    /** A bug in Lance 7.0.0 that the coordinator does not replicate (lance-format.md). */
    LANCE_BUG
  }

  /** One expected difference: the classes both sides must show, and why they differ. */
  public record Entry(LanceOperation first, Object second, String lanceClass, String coordinatorClass, Cause cause,
      String reason) {

    boolean matches(LanceOperation f, Optional<LanceOperation> s) {
      boolean firstMatches = first == null || first == f;
      boolean secondMatches = second == null
          || (ALONE.equals(second) ? s.isEmpty() : s.isPresent() && second == s.get());
      return firstMatches && secondMatches;
    }

    @Override
    public String toString() {
      return (first == null ? "*" : first) + " then " + (second == null ? "*" : second) + ": Lance " + lanceClass
          + ", coordinator " + coordinatorClass + " [" + cause + "] " + reason;
    }
  }

  private static final List<Entry> ENTRIES = new ArrayList<>();

  static {
  }

  private ExpectedDifferences() {}

  private static void expect(LanceOperation first, Object second, String lanceClass, String coordinatorClass,
      Cause cause, String reason) {
    ENTRIES.add(new Entry(first, second, lanceClass, coordinatorClass, cause, reason));
  }

  /** The most specific entry for the pair: exact pairs win over wildcards, listed order breaks ties. */
  public static Optional<Entry> forPair(LanceOperation first, Optional<LanceOperation> second) {
    Entry best = null;
    int bestScore = -1;
    for (Entry e : ENTRIES) {
      if (e.matches(first, second)) {
        int score = (e.first() == null ? 0 : 2) + (e.second() == null ? 0 : 1);
        if (score > bestScore) {
          best = e;
          bestScore = score;
        }
      }
    }
    return Optional.ofNullable(best);
  }

  public static List<Entry> all() {
    return List.copyOf(ENTRIES);
  }
}
