package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.retry.Backoff;
import dev.lancecommit.retry.RetryPolicy;
import java.time.Clock;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which table uses which location, so that no two catalogued tables share files: one claim per location, taken with
 * put-if-absent, instead of reading every table's entry on each declare, register, drop and clone. Every operation
 * costs a bounded number of point reads and writes (the location, its ancestor directories, and the one or two table
 * entries a claim names) plus at most one prefix listing of the claims inside the location where nesting matters;
 * nothing grows with the number of tables.
 *
 * <h2>Claims</h2>
 * Each location has a revision log of claims ({@link RegistryLayout}); the newest revision is the claim. A held claim
 * names a table entry revision ({@code table_id}, {@code table_revision}): the one that records the table at this
 * location. The table entry is the truth; the claim only says whom to ask. A claim {@link Standing#HELD holds} the
 * location while that revision records the location and the entry's newest revision is still that table (same uuid,
 * following renames) live there; it {@link Standing#KEPT keeps} it while that table is deregistered there (its data
 * is kept, so DropTable of an enclosing table must not delete it); it is {@link Standing#STALE stale} once the table
 * was dropped, moved away or replaced, or the named revision turned out to be something else.
 *
 * <h2>Order of writes, and crashes</h2>
 * A table becomes live at a location in two put-if-absent writes: first the claim naming revision {@code r} of its
 * entry, then revision {@code r} of the entry. Deregistering keeps the claim; DropTable writes the entry first,
 * deletes the files, then releases the claim; a rename writes the old entry (naming the revision of the new
 * identifier's entry it is about to create), then the new one, and then lets the claim name the new identifier.
 * Taking a location over from a claim that does not hold it (stale, kept by a deregistered table, released) writes
 * the claim's next revision, so of two coordinators taking one location exactly one succeeds. A claim whose entry
 * revision does not exist yet is in flight: its writer is given a moment (up to 1.5 s in all), and is then
 * <em>fenced</em>: the coordinator that needs the location writes that entry revision itself (the entry's newest
 * revision again, or a dropped placeholder for an entry that has none), so the writer, if still alive, loses its
 * write and fails, and the claim is stale for good. A rename cut short is fenced the same way through the revision
 * its tombstone names. So a coordinator killed between claim and entry, or between DropTable and the release, leaves
 * nothing the next coordinator that needs the location cannot take over; and a table whose entry was written never
 * loses its claim while it is live.
 *
 * <p>Nesting (a location at, inside or around another live table's) is checked before writing, with point reads of
 * the location and its ancestors (so a refusal of those writes nothing), and again after the claim is written, with
 * the ancestors and one listing of the claims inside the location, fencing any in flight there; so of two tables
 * claiming nested locations at the same time at most one is written.
 *
 * <h2>Warehouses written before the registry</h2>
 * Before its first decision a registry makes sure every table of the warehouse has its claim: if the marker
 * {@code _catalog/locations/_registry.json} is missing it lists the catalog once, writes a claim for each live or
 * deregistered table whose location has none, then writes the marker. This runs once per warehouse (again only if it
 * was cut short) and is safe to run on several coordinators at once. Coordinators that predate the registry must not
 * share a warehouse with one that has it: tables they create have no claim.
 */
final class LocationRegistry {
  private static final Logger LOG = LoggerFactory.getLogger(LocationRegistry.class);

  /** What a claim amounts to now. */
  enum Standing {
    /** No claim, or the claim was given back. */
    FREE,
    /** The claim names an entry revision not written yet (only reported when not fencing). */
    IN_FLIGHT,
    /** A live table uses the location. */
    HELD,
    /** A deregistered table's data is at the location; another table may take the location over. */
    KEPT,
    /** The claimed table no longer uses the location, or never did. */
    STALE
  }

  /** A claim's standing, with the entry of the table that holds or keeps the location. */
  record Resolution(Standing standing, Optional<TableRecord> table) {
    static final Resolution FREE = new Resolution(Standing.FREE, Optional.empty());
    static final Resolution IN_FLIGHT = new Resolution(Standing.IN_FLIGHT, Optional.empty());
    static final Resolution STALE = new Resolution(Standing.STALE, Optional.empty());

    /** Held by a live table other than {@code id}. */
    boolean heldByOtherThan(List<String> id) {
      return standing == Standing.HELD && !table.orElseThrow().id().equals(id);
    }

    /** Held or kept by a table other than {@code target}. */
    boolean usedByOtherThan(TableRecord target) {
      return (standing == Standing.HELD || standing == Standing.KEPT)
          && !(table.orElseThrow().id().equals(target.id())
              && table.orElseThrow().tableUuid().equals(target.tableUuid()));
    }
  }

  /**
   * A claim taken for a table entry revision about to be written. {@code written} is false when the location was
   * already held by that table (nothing was written); {@code reinstate} is the kept claim this one replaced, put back
   * if the claim is abandoned.
   */
  record Claim(String locationKey, long revision, LocationClaim claim, Optional<LocationClaim> reinstate,
      boolean written) {}

  /**
   * How long {@link #claim} waits for a claim in flight to be written before fencing it: its writer is normally a few
   * requests from writing its entry, so well under a second; waiting keeps the first claimant the winner.
   */
  private static final RetryPolicy PATIENCE =
      RetryPolicy.exponential(Duration.ofMillis(20), Duration.ofMillis(640)).withMaxElapsed(Duration.ofMillis(1500));

  private final ObjectStore store;
  private final CatalogStore entries;
  private final Locations locations;
  private final RegistryLayout layout;
  private final RevisionLog<LocationClaim> claims;
  private volatile boolean ready;

  LocationRegistry(CatalogStore entries, Locations locations, Clock clock) {
    this.store = entries.objectStore();
    this.entries = entries;
    this.locations = locations;
    this.layout = new RegistryLayout(entries.catalogBase());
    this.claims = new RevisionLog<>(store, new RevisionLog.Codec<>() {
      @Override
      public byte[] encode(LocationClaim value, long revision) {
        return CatalogFiles.write(value, revision);
      }

      @Override
      public LocationClaim decode(String key, byte[] data) {
        return CatalogFiles.readClaim(key, data);
      }
    }, (claim, now) -> claim, LocationClaim::held, clock);
  }

  // ---------------------------------------------------------------- checks that write nothing

  /**
   * Refuses a location that another live table holds, or that lies inside another live table's location. Point reads
   * only (the location and its ancestors); a table inside the location is found by {@link #confirmNoOverlap}.
   */
  void requireFree(List<String> id, String locationKey) {
    ensureReady();
    Resolution at = resolveAt(locationKey, false);
    if (at.heldByOtherThan(id)) {
      throw takenBy(id, at.table().orElseThrow());
    }
    for (String ancestor : RegistryLayout.ancestors(locationKey)) {
      Resolution around = resolveAt(ancestor, false);
      if (around.heldByOtherThan(id)) {
        throw takenBy(id, around.table().orElseThrow());
      }
    }
  }

  /** The live table whose location is {@code locationKey} or the nearest directory above it that a table holds. */
  Optional<TableRecord> liveHolder(String locationKey) {
    ensureReady();
    List<String> candidates = new ArrayList<>();
    candidates.add(locationKey);
    candidates.addAll(RegistryLayout.ancestors(locationKey));
    for (String key : candidates) {
      Resolution r;
      try {
        r = resolveAt(key, false);
      } catch (InvalidCatalogInputException tooLong) {
        continue;
      }
      if (r.standing() == Standing.HELD) {
        return r.table();
      }
    }
    return Optional.empty();
  }

  /**
   * Refuses to let DropTable delete {@code locationKey} when another table, live or deregistered, has its files at a
   * location around or inside it. Fences claims in flight, so none of them can be written while the files go.
   */
  void requireDroppable(TableRecord target, String locationKey) {
    ensureReady();
    for (String ancestor : RegistryLayout.ancestors(locationKey)) {
      Resolution around = resolveAt(ancestor, true);
      if (around.usedByOtherThan(target)) {
        throw sharedWith(target, around);
      }
    }
    for (Map.Entry<String, Long> inside : claimsInside(locationKey).entrySet()) {
      Resolution r = resolve(inside.getKey(), read(inside.getKey(), inside.getValue()), true);
      if (r.usedByOtherThan(target)) {
        throw sharedWith(target, r);
      }
    }
  }

  // ---------------------------------------------------------------- claiming

  /**
   * Claims {@code locationKey} for revision {@code tableRevision} of table {@code id}, which the caller writes next
   * (as uuid {@code tableUuid}). Writes nothing when that table already holds the location with that uuid. A claim
   * that does not hold the location (stale, kept by a deregistered table, released) is taken over. A claim in flight
   * is given a moment to be written (its writer is usually a few requests away from it) and then fenced.
   *
   * @throws TableAlreadyExistsException another live table holds the location
   * @throws RevisionLog.RevisionTaken while waiting, the caller's table entry got revision {@code tableRevision}
   * @throws CatalogConcurrentUpdateException the claim kept changing under every attempt
   */
  Claim claim(List<String> id, String tableUuid, long tableRevision, String locationKey) {
    ensureReady();
    String dir = layout.claimDir(locationKey);
    Backoff patience = PATIENCE.start();
    for (int attempt = 1; attempt <= RevisionLog.MAX_UPDATE_ATTEMPTS; attempt++) {
      Optional<RevisionLog.Revision<LocationClaim>> newest = claims.latest(dir);
      Resolution current = newest.map(r -> resolve(locationKey, r.value(), false)).orElse(Resolution.FREE);
      if (current.standing() == Standing.IN_FLIGHT) {
        Optional<Duration> pause = patience.onFailure();
        if (pause.isPresent()) {
          sleep(pause.get());
          if (entries.table(id).map(RevisionLog.Revision::number).orElse(0L) >= tableRevision) {
            throw new RevisionLog.RevisionTaken("revision " + tableRevision + " of " + Identifiers.display(id)
                + " was written while waiting for the claim on " + newest.get().value().location());
          }
          attempt--;
          continue;
        }
        LocationClaim pending = newest.get().value();
        current = resolve(locationKey, pending, true);
        if (pending.tableId().equals(id) && pending.tableRevision() == tableRevision) {
          // the claim in flight was for the very revision the caller is about to write: now fenced, so it is gone
          throw new RevisionLog.RevisionTaken("revision " + tableRevision + " of " + Identifiers.display(id)
              + " was fenced: an earlier claim on " + pending.location() + " named it");
        }
      }
      if (current.standing() == Standing.HELD) {
        TableRecord holder = current.table().orElseThrow();
        if (!holder.id().equals(id)) {
          throw takenBy(id, holder);
        }
        if (holder.tableUuid().equals(tableUuid)) {
          RevisionLog.Revision<LocationClaim> mine = newest.orElseThrow();
          return new Claim(locationKey, mine.number(), mine.value(), Optional.empty(), false);
        }
      }
      LocationClaim next = LocationClaim.held(locations.canonical(locationKey), id, tableRevision, claims.now());
      long revision = newest.map(r -> r.number() + 1).orElse(1L);
      try {
        claims.append(dir, revision, next);
        Optional<LocationClaim> reinstate = current.standing() == Standing.KEPT
            ? newest.map(RevisionLog.Revision::value) : Optional.empty();
        return new Claim(locationKey, revision, next, reinstate, true);
      } catch (ObjectAlreadyExistsException raced) {
        LOG.debug("Claim revision {} of {} was taken by another writer; re-reading", revision, locationKey);
      }
    }
    throw new CatalogConcurrentUpdateException("The claim on location " + locations.canonical(locationKey)
        + " changed " + RevisionLog.MAX_UPDATE_ATTEMPTS + " times while " + Identifiers.display(id)
        + " tried to take it; nothing was changed, retry");
  }

  private static void sleep(Duration pause) {
    try {
      Thread.sleep(pause.toMillis(), pause.toNanosPart() % 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new CatalogConcurrentUpdateException("Interrupted while waiting for a location claim");
    }
  }

  /**
   * After {@link #claim}: refuses (and abandons the claim, which is idempotent) when another live table holds a
   * location around or inside the claimed one. Claims in flight there are fenced, so they can no longer be written.
   */
  void confirmNoOverlap(List<String> id, Claim claim) {
    if (!claim.written()) {
      return;
    }
    String key = claim.locationKey();
    for (String ancestor : RegistryLayout.ancestors(key)) {
      Resolution around = resolveAt(ancestor, true);
      if (around.heldByOtherThan(id)) {
        abandon(claim);
        throw takenBy(id, around.table().orElseThrow());
      }
    }
    for (Map.Entry<String, Long> inside : claimsInside(key).entrySet()) {
      Resolution r = resolve(inside.getKey(), read(inside.getKey(), inside.getValue()), true);
      if (r.heldByOtherThan(id)) {
        abandon(claim);
        throw takenBy(id, r.table().orElseThrow());
      }
    }
  }

  /**
   * Gives back a claim whose entry revision was not written, or was taken back: puts back the kept claim it replaced,
   * or releases the location. Does nothing when the claim is no longer the newest (someone took the location over).
   */
  void abandon(Claim claim) {
    if (!claim.written()) {
      return;
    }
    LocationClaim back = claim.reinstate().map(kept -> kept.reinstated(claims.now()))
        .orElseGet(() -> claim.claim().released(claims.now()));
    try {
      claims.append(layout.claimDir(claim.locationKey()), claim.revision() + 1, back);
    } catch (ObjectAlreadyExistsException moved) {
      // a newer claim exists; ours is not the claim any more
    } catch (RuntimeException e) {
      LOG.warn("Could not give back the claim on {}; the next table that needs the location takes it over",
          claim.claim().location(), e);
    }
  }

  /** Gives the location back when its claim is stale (after DropTable, or a table moved away). Best effort. */
  void release(String locationKey) {
    try {
      String dir = layout.claimDir(locationKey);
      Optional<RevisionLog.Revision<LocationClaim>> newest = claims.latest(dir);
      if (newest.isEmpty() || !newest.get().value().held()) {
        return;
      }
      if (resolve(locationKey, newest.get().value(), false).standing() == Standing.STALE) {
        claims.append(dir, newest.get().number() + 1, newest.get().value().released(claims.now()));
      }
    } catch (ObjectAlreadyExistsException moved) {
      // someone took the location meanwhile
    } catch (RuntimeException e) {
      LOG.warn("Could not release the claim on {}; the next table that needs the location takes it over",
          locations.canonical(locationKey), e);
    }
  }

  /**
   * After a rename: lets the claim name the table's new identifier, so finding its holder does not walk the rename.
   * Best effort: the claim holds through the rename either way.
   */
  void follow(TableRecord arrived, long revision) {
    try {
      String key = locations.keyOf(arrived.location());
      String dir = layout.claimDir(key);
      Optional<RevisionLog.Revision<LocationClaim>> newest = claims.latest(dir);
      if (newest.isEmpty() || newest.get().value().tableId().equals(arrived.id())) {
        return;
      }
      Resolution r = resolve(key, newest.get().value(), false);
      if (r.standing() == Standing.HELD && r.table().orElseThrow().id().equals(arrived.id())
          && r.table().orElseThrow().tableUuid().equals(arrived.tableUuid())) {
        claims.append(dir, newest.get().number() + 1, LocationClaim.held(newest.get().value().location(),
            arrived.id(), revision, claims.now()));
      }
    } catch (ObjectAlreadyExistsException moved) {
      // changed meanwhile; the claim still resolves through the rename
    } catch (RuntimeException e) {
      LOG.debug("Claim of {} not moved to its new identifier", Identifiers.display(arrived.id()), e);
    }
  }

  // ---------------------------------------------------------------- resolving claims

  private Resolution resolveAt(String locationKey, boolean fence) {
    return claims.latest(layout.claimDir(locationKey))
        .map(r -> resolve(locationKey, r.value(), fence))
        .orElse(Resolution.FREE);
  }

  /**
   * What {@code claim} amounts to: asks the entry revision it names, then follows the table's entry (through renames)
   * to its newest revision. With {@code fence}, entry revisions not written yet are written first as fences, so the
   * answer never is {@link Standing#IN_FLIGHT}.
   */
  private Resolution resolve(String locationKey, LocationClaim claim, boolean fence) {
    if (!claim.held()) {
      return Resolution.FREE;
    }
    Optional<RevisionLog.Revision<TableRecord>> newest = entries.table(claim.tableId());
    if (newest.map(RevisionLog.Revision::number).orElse(0L) < claim.tableRevision()) {
      if (!fence) {
        return Resolution.IN_FLIGHT;
      }
      if (fenced(claim.tableId(), claim.tableRevision(), newest, claim)) {
        return Resolution.STALE;
      }
      newest = entries.table(claim.tableId());
    }
    TableRecord recorded = entries.tableRevision(claim.tableId(), claim.tableRevision());
    if (!recordsAt(recorded, locationKey)) {
      return Resolution.STALE;
    }
    String uuid = recorded.tableUuid();
    TableRecord current = newest.orElseThrow().value();
    Set<List<String>> seen = new HashSet<>();
    while (seen.add(current.id())) {
      if (!sameTable(current, locationKey, uuid)) {
        return Resolution.STALE;
      }
      switch (current.status()) {
        case DECLARED, REGISTERED:
          return new Resolution(Standing.HELD, Optional.of(current));
        case DEREGISTERED:
          return new Resolution(Standing.KEPT, Optional.of(current));
        case DROPPED:
          return Resolution.STALE;
        case RENAMED:
        default:
          break;
      }
      if (current.renamedTo().isEmpty()) {
        return Resolution.STALE;
      }
      List<String> target = current.renamedTo().get();
      Optional<RevisionLog.Revision<TableRecord>> moved = entries.table(target);
      if (current.renamedToRevision().isPresent()) {
        long arrival = current.renamedToRevision().getAsLong();
        if (moved.map(RevisionLog.Revision::number).orElse(0L) < arrival) {
          if (!fence) {
            return Resolution.IN_FLIGHT;
          }
          if (fenced(target, arrival, moved, claim)) {
            return Resolution.STALE;
          }
          moved = entries.table(target);
        }
        TableRecord arrived = entries.tableRevision(target, arrival);
        if (!sameTable(arrived, locationKey, uuid) || !arrived.isLive()
            || !arrived.renamedFrom().equals(Optional.of(current.id()))) {
          return Resolution.STALE;
        }
      }
      if (moved.isEmpty()) {
        return Resolution.STALE;
      }
      current = moved.get().value();
    }
    return Resolution.STALE;
  }

  private boolean fenced(List<String> tableId, long revision, Optional<RevisionLog.Revision<TableRecord>> newest,
      LocationClaim claim) {
    boolean written = entries.fenceTable(tableId, revision, newest.map(RevisionLog.Revision::value),
        claim.location());
    if (written) {
      LOG.info("Claim on {} names revision {} of {}, which was never written; fenced it, so the location is free",
          claim.location(), revision, Identifiers.display(tableId));
    }
    return written;
  }

  /** The entry revision a claim names records a table (live or with its data kept) at the claimed location. */
  private boolean recordsAt(TableRecord record, String locationKey) {
    return (record.isLive() || record.status() == TableStatus.DEREGISTERED)
        && sameTable(record, locationKey, record.tableUuid());
  }

  private boolean sameTable(TableRecord record, String locationKey, String tableUuid) {
    if (!record.tableUuid().equals(tableUuid)) {
      return false;
    }
    try {
      return locations.keyOf(record.location()).equals(locationKey);
    } catch (InvalidCatalogInputException elsewhere) {
      return false;
    }
  }

  private LocationClaim read(String locationKey, long revision) {
    return claims.read(layout.claimDir(locationKey), revision).value();
  }

  /** The newest claim revision of every location strictly inside {@code locationKey}: one prefix listing. */
  private Map<String, Long> claimsInside(String locationKey) {
    Map<String, Long> newest = new TreeMap<>();
    for (ObjectInfo info : store.list(layout.locationDir(locationKey))) {
      layout.locate(info.key()).filter(l -> !l.locationKey().equals(locationKey))
          .ifPresent(l -> newest.merge(l.locationKey(), l.revision(), Math::max));
    }
    return newest;
  }

  private TableAlreadyExistsException takenBy(List<String> id, TableRecord other) {
    return new TableAlreadyExistsException(id, "Table " + Identifiers.display(other.id()) + " already uses "
        + other.location() + "; a table location may not be at, inside or around another table's location");
  }

  private TableDropRefusedException sharedWith(TableRecord target, Resolution other) {
    TableRecord record = other.table().orElseThrow();
    return new TableDropRefusedException(target.id(), "Table " + Identifiers.display(target.id())
        + " shares files with " + (other.standing() == Standing.HELD ? "table " : "deregistered table ")
        + Identifiers.display(record.id()) + " at " + record.location()
        + "; nothing was deleted. Use DeregisterTable to remove it from the catalog.");
  }

  // ---------------------------------------------------------------- warehouses from before the registry

  /** Makes sure every catalogued table has its claim (see the class comment); once per registry instance. */
  void ensureReady() {
    if (ready) {
      return;
    }
    synchronized (this) {
      if (!ready) {
        if (store.head(layout.marker()).isEmpty()) {
          backfill();
        }
        ready = true;
      }
    }
  }

  private record Candidate(TableRecord record, long revision) {}

  private void backfill() {
    Map<String, Candidate> byLocation = new TreeMap<>();
    entries.allTables().forEach((id, revision) -> {
      TableRecord record;
      try {
        record = entries.tableRevision(id, revision);
      } catch (CorruptCatalogEntryException e) {
        LOG.warn("Location registry backfill skips a catalog entry: {}", e.getMessage());
        return;
      }
      if (!record.isLive() && record.status() != TableStatus.DEREGISTERED) {
        return;
      }
      String key;
      try {
        key = locations.keyOf(record.location());
      } catch (InvalidCatalogInputException elsewhere) {
        LOG.warn("Location registry backfill skips {}: {}", Identifiers.display(id), elsewhere.getMessage());
        return;
      }
      byLocation.merge(key, new Candidate(record, revision), (a, b) -> a.record().isLive() ? a : b);
    });
    int written = 0;
    for (Map.Entry<String, Candidate> location : byLocation.entrySet()) {
      Candidate c = location.getValue();
      try {
        String dir = layout.claimDir(location.getKey());
        if (claims.latest(dir).isEmpty()) {
          claims.append(dir, 1, LocationClaim.held(c.record().location(), c.record().id(), c.revision(),
              claims.now()));
          written++;
        }
      } catch (ObjectAlreadyExistsException concurrent) {
        // another coordinator filled it
      } catch (InvalidCatalogInputException tooLong) {
        LOG.warn("Location registry backfill skips {}: {}", Identifiers.display(c.record().id()),
            tooLong.getMessage());
      }
    }
    try {
      store.putIfAbsent(layout.marker(), CatalogFiles.registryMarker(claims.now(), byLocation.size()));
    } catch (ObjectAlreadyExistsException concurrent) {
      // another coordinator finished first
    }
    LOG.info("Location registry of {} ready: {} table locations found, {} claims written",
        locations.canonical(entries.catalogBase()), byLocation.size(), written);
  }
}
