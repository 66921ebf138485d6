package dev.lancecommit.events.audit;

import java.time.Instant;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;

/**
 * What changed in one table between two instants: the recorded versions (oldest first) and their totals.
 *
 * @param tableId the table asked about
 * @param from start of the range (inclusive)
 * @param to end of the range (exclusive)
 * @param entries the versions committed in the range, by commit time then version
 */
public record TableChanges(List<String> tableId, Instant from, Instant to, List<AuditEntry> entries) {

  public TableChanges {
    tableId = List.copyOf(tableId);
    entries = List.copyOf(entries);
  }

  public long rowsAdded() {
    return entries.stream().mapToLong(e -> e.event().rowsAdded()).sum();
  }

  public long rowsRemoved() {
    return entries.stream().mapToLong(e -> e.event().rowsRemoved()).sum();
  }

  public long fragmentsAdded() {
    return entries.stream().mapToLong(e -> e.event().fragmentsAdded()).sum();
  }

  public long fragmentsRemoved() {
    return entries.stream().mapToLong(e -> e.event().fragmentsRemoved()).sum();
  }

  /** Everyone who committed in the range, sorted. */
  public Set<String> actors() {
    Set<String> actors = new TreeSet<>();
    entries.forEach(e -> actors.add(e.event().actor()));
    return actors;
  }

  /** Versions written bypassing the coordinator (discovered afterwards). */
  public long ungoverned() {
    return entries.stream().filter(e -> !e.event().governed()).count();
  }
}
