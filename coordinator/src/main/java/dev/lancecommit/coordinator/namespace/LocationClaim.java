package dev.lancecommit.coordinator.namespace;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * One revision of a location's claim in the {@link LocationRegistry}: which table took the location, or that it was
 * given back. A held claim names the table entry revision that records the table at this location
 * ({@code tableId}, {@code tableRevision}), written right after the claim; whether the claim still stands is decided
 * by that entry, never by the claim alone.
 *
 * @param location the location as the catalog spells it (for people reading the registry)
 * @param claimId random per claim, so a claim written back after an ambiguous write is recognised as ours
 */
record LocationClaim(String location, boolean held, List<String> tableId, long tableRevision, String claimId,
    Instant createdAt) {

  LocationClaim {
    tableId = List.copyOf(tableId);
  }

  static LocationClaim held(String location, List<String> tableId, long tableRevision, Instant now) {
    return new LocationClaim(location, true, tableId, tableRevision, UUID.randomUUID().toString(), now);
  }

  /** This claim given back: the location is free. */
  LocationClaim released(Instant now) {
    return new LocationClaim(location, false, tableId, tableRevision, UUID.randomUUID().toString(), now);
  }

  /** This claim written again as a newer revision (to put it back after taking the location over failed). */
  LocationClaim reinstated(Instant now) {
    return new LocationClaim(location, held, tableId, tableRevision, claimId, now);
  }
}
