package dev.lancecommit.chaos.harness;

import java.util.Map;
import java.util.Set;

/**
 * What a transaction does to the rows of a table, by row id: rows written (new, or replacing the row with that id)
 * and rows removed. Compactions and index builds change no row.
 */
public record RowEffect(Map<Long, String> upserts, Set<Long> deletes) {
  public static final RowEffect NONE = new RowEffect(Map.of(), Set.of());

  public RowEffect {
    upserts = Map.copyOf(upserts);
    deletes = Set.copyOf(deletes);
  }

  /** Applies the effect to {@code rows} (id to value). */
  public void applyTo(Map<Long, String> rows) {
    deletes.forEach(rows::remove);
    rows.putAll(upserts);
  }
}
