package dev.lancecommit.chaos.property;

/**
 * One generated step: writer {@code writer} builds a {@code kind} operation on a read version {@code staleness}
 * versions behind the latest (0 = up to date) and sends it to CommitTable. {@code parameter} picks the details
 * (rows, predicate, fragments, config key).
 */
public record Step(int writer, Kind kind, int staleness, int parameter) {

  public enum Kind { APPEND, DELETE, OVERWRITE, REWRITE, UPDATE_CONFIG, CREATE_INDEX }

  @Override
  public String toString() {
    return "w" + writer + " " + kind + " stale=" + staleness + " p=" + parameter;
  }
}
