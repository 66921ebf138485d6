package dev.lancecommit.coordinator.namespace;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectKeys;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The tables of the catalog: their life cycle (declared or registered, deregistered, renamed, dropped) as revisions
 * of their entries in the {@link CatalogStore}, with the {@link LocationRegistry} deciding who may use a location.
 *
 * <p>Every revision that makes a table live at a location first claims the location (a {@link LocationGuard} runs
 * before the revision is written); deregistering keeps the claim (the data stays), DropTable and moving a table
 * release it. Tables are never moved on disk: rename keeps the location, deregister keeps the data, and only DropTable
 * deletes files, only inside the warehouse and when no other catalogued table uses them.
 */
final class TableCatalog {
  private static final Logger LOG = LoggerFactory.getLogger(TableCatalog.class);
  private static final String VERSIONS_DIR = ManifestNaming.VERSIONS_DIR;
  private static final int DELETE_PASSES = 3;

  private final CatalogStore entries;
  private final LocationRegistry registry;
  private final Locations locations;
  private final ObjectStore store;
  private final String warehouseKey;
  private final Cache<List<String>, TableEntry> tableCache;

  TableCatalog(CatalogStore entries, Locations locations, LocationRegistry registry, Duration cacheTtl) {
    this.entries = entries;
    this.registry = registry;
    this.locations = locations;
    this.store = entries.objectStore();
    this.warehouseKey = entries.warehouseKey();
    this.tableCache = Caffeine.newBuilder().expireAfterWrite(cacheTtl).maximumSize(100_000).build();
  }

  /** The live table's entry if the short-lived cache holds it; never reads the store. */
  Optional<TableEntry> cachedTable(List<String> id) {
    if (id.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(tableCache.getIfPresent(id));
  }

  /** The live table's entry, from a short-lived cache or the store. */
  Optional<TableEntry> loadTable(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(tableCache.get(List.copyOf(id), k -> loadLiveTable(k).orElse(null)));
  }

  /** The revisions of the entry written at or after {@code since}, oldest first. */
  List<TableChange> changesSince(List<String> id, Instant since) {
    Identifiers.validate(id);
    List<TableChange> changes = new ArrayList<>();
    Optional<RevisionLog.Revision<TableRecord>> newest = entries.table(id);
    if (newest.isEmpty()) {
      return changes;
    }
    for (long revision = newest.get().number(); revision >= 1; revision--) {
      TableRecord record = revision == newest.get().number() ? newest.get().value()
          : entries.tableRevision(id, revision);
      if (record.updatedAt().isBefore(since)) {
        break;
      }
      changes.add(0, new TableChange(record.id(), record.tableUuid(), record.location(), record.status().wireName(),
          record.updatedAt(), record.renamedFrom()));
    }
    return changes;
  }

  TableEntry declareTable(List<String> id, Optional<String> location, Map<String, String> properties) {
    validateTableId(id);
    List<String> namespace = parentOf(id);
    entries.requireNamespace(namespace);
    String resolved = location
        .map(loc -> locations.canonical(locations.keyOf(loc)))
        .orElseGet(() -> defaultLocation(id));
    String locationKey = locations.keyOf(resolved);
    TableVersions existingData = versionsAt(locationKey);
    if (!existingData.isEmpty()) {
      throw new TableAlreadyExistsException(id, "Location '" + resolved + "' already holds a Lance dataset (version "
          + existingData.latest().getAsLong() + "); use RegisterTable to catalog it");
    }
    registry.requireFree(id, locationKey);
    LocationGuard guard = new LocationGuard();
    RevisionLog.Mutation<TableRecord> m = mutateTable(id, current -> {
      if (current.isPresent() && current.get().isLive()) {
        throw new TableAlreadyExistsException(id);
      }
      return TableRecord.create(id, resolved, UUID.randomUUID().toString(), TableStatus.DECLARED, properties,
          entries.now());
    }, guard);
    confirmParent(namespace, () -> undo(id, m.after(), guard));
    return m.after().live().orElseThrow();
  }

  TableEntry registerTable(List<String> id, String location, RegisterMode mode, Map<String, String> properties) {
    validateTableId(id);
    List<String> namespace = parentOf(id);
    entries.requireNamespace(namespace);
    String locationKey = locations.keyOf(location);
    String canonical = locations.canonical(locationKey);
    if (versionsAt(locationKey).isEmpty()) {
      throw new InvalidCatalogInputException(
          "Location '" + location + "' holds no Lance dataset: no manifest under " + VERSIONS_DIR + "/");
    }
    registry.requireFree(id, locationKey);
    LocationGuard guard = new LocationGuard();
    RevisionLog.Mutation<TableRecord> m = mutateTable(id, current -> {
      if (current.isPresent() && current.get().isLive() && mode == RegisterMode.CREATE) {
        throw new TableAlreadyExistsException(id);
      }
      // RENAMED counts too: its data is kept, and no live entry uses the location (checked above), so this is a
      // rename that stopped half way (the new entry was never written)
      Optional<TableRecord> same = current.filter(c -> c.location().equals(canonical)
          && c.status() != TableStatus.DROPPED);
      Instant now = entries.now();
      return new TableRecord(id, canonical,
          same.map(TableRecord::tableUuid).orElseGet(() -> UUID.randomUUID().toString()), TableStatus.REGISTERED,
          properties, same.map(TableRecord::createdAt).orElse(now), now, "", Optional.empty(), OptionalLong.empty(),
          Optional.empty());
    }, guard);
    if (m.created()) {
      confirmParent(namespace, () -> undo(id, m.after(), guard));
    }
    if (m.written()) {
      // a table registered over its own entry at another location leaves that location
      m.before().filter(b -> !b.location().equals(canonical)).ifPresent(b -> releaseQuietly(b.location()));
    }
    return m.after().live().orElseThrow();
  }

  TableEntry deregisterTable(List<String> id) {
    validateTableId(id);
    RevisionLog.Mutation<TableRecord> m =
        mutateTable(id, current -> requireLive(id, current).withStatus(TableStatus.DEREGISTERED), new LocationGuard());
    return m.before().flatMap(TableRecord::live).orElseThrow();
  }

  TableEntry dropTable(List<String> id) {
    validateTableId(id);
    TableRecord target = entries.table(id).map(RevisionLog.Revision::value)
        .filter(TableRecord::isLive)
        .orElseThrow(() -> new TableNotFoundException(id));
    String locationKey = droppableLocation(target);
    RevisionLog.Mutation<TableRecord> m = mutateTable(id, current -> {
      TableRecord live = requireLive(id, current);
      if (!live.tableUuid().equals(target.tableUuid()) || !live.location().equals(target.location())) {
        throw new CatalogConcurrentUpdateException("Table " + Identifiers.display(id)
            + " was replaced while it was being dropped; nothing was deleted");
      }
      return live.withStatus(TableStatus.DROPPED);
    }, new LocationGuard());
    deleteFiles(locationKey);
    registry.release(locationKey);
    return m.before().flatMap(TableRecord::live).orElseThrow();
  }

  TableEntry renameTable(List<String> id, List<String> newId) {
    validateTableId(id);
    validateTableId(newId);
    if (id.equals(newId)) {
      throw new InvalidCatalogInputException("Table " + Identifiers.display(id) + " already has that identifier");
    }
    List<String> targetNamespace = parentOf(newId);
    if (loadLiveTable(id).isEmpty()) {
      throw new TableNotFoundException(id);
    }
    entries.requireNamespace(targetNamespace);
    if (loadLiveTable(newId).isPresent()) {
      throw new TableAlreadyExistsException(newId);
    }
    RevisionLog.Mutation<TableRecord> left = mutateTable(id,
        current -> requireLive(id, current).renamedTo(newId, nextRevision(newId)), new LocationGuard());
    TableRecord original = left.before().orElseThrow();
    TableRecord tombstone = left.after();
    long arrival = tombstone.renamedToRevision().getAsLong();
    TableRecord arrived;
    try {
      arrived = arrive(id, newId, arrival, original.movedTo(newId));
    } catch (RuntimeException e) {
      restoreTable(id, tombstone, original);
      throw e;
    }
    try {
      confirmParent(targetNamespace, () -> undoTable(newId, arrived));
    } catch (NamespaceNotFoundException e) {
      restoreTable(id, tombstone, original);
      throw e;
    }
    registry.follow(arrived, arrival);
    return arrived.live().orElseThrow();
  }

  /** See {@link Catalog#listTables}. */
  Page<String> listTables(List<String> namespace, Optional<String> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    Identifiers.validate(namespace);
    entries.requireNamespace(namespace);
    Page.checkLimit(limit);
    List<String> names = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate : entries.tablesIn(namespace).entrySet()) {
      List<String> id = candidate.getKey();
      String name = id.get(id.size() - 1);
      if (after.isPresent() && name.compareTo(after.get()) <= 0 || !visible.test(id)) {
        continue;
      }
      if (listable(id, candidate.getValue(), includeDeclared)) {
        names.add(name);
        if (names.size() > limit) {
          break;
        }
      }
    }
    return Page.of(names, limit);
  }

  Page<List<String>> listAllTables(Optional<List<String>> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    Page.checkLimit(limit);
    List<List<String>> ids = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate : entries.allTables().entrySet()) {
      List<String> id = candidate.getKey();
      if (after.isPresent() && Identifiers.ORDER.compare(id, after.get()) <= 0 || !visible.test(id)) {
        continue;
      }
      if (listable(id, candidate.getValue(), includeDeclared)) {
        ids.add(id);
        if (ids.size() > limit) {
          break;
        }
      }
    }
    return Page.of(ids, limit);
  }

  List<TableEntry> liveTables() {
    List<TableEntry> live = new ArrayList<>();
    entries.allTables().forEach((id, revision) -> {
      try {
        entries.tableRevision(id, revision).live().ifPresent(live::add);
      } catch (CorruptCatalogEntryException e) {
        LOG.warn("Skipping catalog entry: {}", e.getMessage());
      }
    });
    return live;
  }

  Optional<TableEntry> liveTableHolding(String location) {
    String key;
    try {
      key = locations.keyOf(location);
    } catch (InvalidCatalogInputException elsewhere) {
      return Optional.empty();
    }
    return registry.liveHolder(key).flatMap(TableRecord::live);
  }

  /** The versions whose manifests are in the table's {@code _versions/} directory now (both naming schemes). */
  TableVersions listVersions(TableEntry table) {
    return versionsAt(locations.keyOf(table.location()));
  }

  /** Every version in the table's {@code _versions/} directory with its manifest's size and write time, ascending. */
  List<VersionFile> versionFiles(TableEntry table) {
    return tableAt(locations.keyOf(table.location())).versionFiles();
  }

  Optional<VersionFile> latestVersionFile(TableEntry table) {
    return tableAt(locations.keyOf(table.location())).latestVersionFile();
  }

  /** One version's manifest with its size and write time, without listing {@code _versions/}. */
  Optional<VersionFile> versionFile(TableEntry table, long version) {
    return tableAt(locations.keyOf(table.location())).versionFile(version);
  }

  /**
   * The decoded manifest of one version of a table.
   *
   * @throws TableVersionNotFoundException when the table has no such version (any more)
   */
  ManifestFile readManifest(TableEntry table, long version) {
    return tableAt(locations.keyOf(table.location())).readVersion(version)
        .orElseThrow(() -> new TableVersionNotFoundException(table.id(), version));
  }

  /** {@code {warehouse}/{namespace parts...}/{table}.lance}. */
  String defaultLocation(List<String> id) {
    validateTableId(id);
    List<String> segments = new ArrayList<>(id);
    segments.set(segments.size() - 1, segments.get(segments.size() - 1) + ".lance");
    String key = warehouseKey;
    for (String segment : segments) {
      key = ObjectKeys.join(key, segment);
    }
    return locations.canonical(key);
  }

  // ---------------------------------------------------------------- writing entries

  /**
   * Claims the location of every revision that makes a table live at it, just before the revision is written, and
   * refuses when another table holds it or an overlapping location; gives the claim back when the revision is lost
   * to another writer. Revisions that are not live (deregister, drop, rename tombstones) pass untouched.
   */
  private final class LocationGuard implements RevisionLog.WriteGuard<TableRecord> {
    private LocationRegistry.Claim claim;

    @Override
    public Runnable beforeWrite(Optional<TableRecord> current, TableRecord next, long revision) {
      claim = null;
      if (!next.isLive()) {
        return () -> { };
      }
      LocationRegistry.Claim taken =
          registry.claim(next.id(), next.tableUuid(), revision, locations.keyOf(next.location()));
      try {
        registry.confirmNoOverlap(next.id(), taken);
      } catch (RuntimeException e) {
        registry.abandon(taken);
        throw e;
      }
      claim = taken;
      return () -> registry.abandon(taken);
    }

    /** Gives back the claim of the revision written last (after that revision was taken back). */
    void abandon() {
      if (claim != null) {
        registry.abandon(claim);
      }
    }
  }

  private RevisionLog.Mutation<TableRecord> mutateTable(List<String> id,
      Function<Optional<TableRecord>, TableRecord> change, LocationGuard guard) {
    try {
      return entries.mutateTable(id, change, guard);
    } finally {
      tableCache.invalidate(List.copyOf(id));
    }
  }

  /** The one write that makes a renamed table arrive under its new identifier, at the revision its tombstone names. */
  private TableRecord arrive(List<String> id, List<String> newId, long revision, TableRecord record) {
    try {
      return entries.appendTable(newId, revision, record);
    } catch (ObjectAlreadyExistsException taken) {
      if (loadLiveTable(newId).isPresent()) {
        throw new TableAlreadyExistsException(newId);
      }
      throw new CatalogConcurrentUpdateException("Table " + Identifiers.display(newId) + " changed while "
          + Identifiers.display(id) + " was being renamed to it; nothing was changed, retry");
    } finally {
      tableCache.invalidate(List.copyOf(newId));
    }
  }

  private long nextRevision(List<String> id) {
    return entries.table(id).map(r -> r.number() + 1).orElse(1L);
  }

  /** Takes back a creation that must not stand: the entry first, then its claim. */
  private void undo(List<String> id, TableRecord ours, LocationGuard guard) {
    undoTable(id, ours);
    guard.abandon();
  }

  /** Takes back our own write (if it is still the newest revision) after a refused creation. */
  private void undoTable(List<String> id, TableRecord ours) {
    mutateTable(id, current -> current.filter(c -> c.revisionId().equals(ours.revisionId()))
        .map(c -> c.withStatus(TableStatus.DEREGISTERED))
        .orElse(current.orElse(null)), new LocationGuard());
  }

  /**
   * Puts a renamed-away table back under its old identifier, unless someone changed that identifier since. Going
   * live again claims the location again, so if another table took it meanwhile the table stays renamed away.
   */
  private void restoreTable(List<String> id, TableRecord ourTombstone, TableRecord original) {
    try {
      mutateTable(id, current -> current.filter(c -> c.revisionId().equals(ourTombstone.revisionId()))
          .map(c -> original)
          .orElse(current.orElse(null)), new LocationGuard());
    } catch (RuntimeException e) {
      LOG.error("Rename of {} failed and the table could not be put back under its old identifier; its data is "
          + "intact at {} and can be registered again", Identifiers.display(id), original.location(), e);
    }
  }

  private void releaseQuietly(String location) {
    try {
      registry.release(locations.keyOf(location));
    } catch (InvalidCatalogInputException elsewhere) {
      // not a location the registry knows
    }
  }

  // ---------------------------------------------------------------- internals

  private Optional<TableEntry> loadLiveTable(List<String> id) {
    return entries.table(id).flatMap(r -> r.value().live());
  }

  private static TableRecord requireLive(List<String> id, Optional<TableRecord> current) {
    return current.filter(TableRecord::isLive).orElseThrow(() -> new TableNotFoundException(id));
  }

  /** After creating a table: if its namespace was dropped meanwhile, undo it and report the namespace missing. */
  private void confirmParent(List<String> parent, Runnable undo) {
    if (!entries.namespaceExists(parent)) {
      undo.run();
      throw new NamespaceNotFoundException(parent);
    }
  }

  private boolean listable(List<String> id, long revision, boolean includeDeclared) {
    return CatalogStore.readable(() -> {
      TableRecord record = entries.tableRevision(id, revision);
      if (!record.isLive()) {
        return false;
      }
      return includeDeclared || record.status() != TableStatus.DECLARED
          || !versionsAt(locations.keyOf(record.location())).isEmpty();
    });
  }

  /**
   * The store key under which DropTable may delete: inside the warehouse, and not shared with any other table
   * whose data the catalog still promises to keep (live or deregistered).
   */
  private String droppableLocation(TableRecord target) {
    String key = locations.keyOf(target.location());
    if (!warehouseKey.isEmpty() && !key.startsWith(warehouseKey + "/")) {
      throw new TableDropRefusedException(target.id(), "Table " + Identifiers.display(target.id())
          + " lives at " + target.location() + ", outside the warehouse; DropTable only deletes files inside the "
          + "warehouse. Use DeregisterTable to remove it from the catalog and keep its files.");
    }
    registry.requireDroppable(target, key);
    return key;
  }

  /** Deletes every object under the table root, manifests first so readers stop finding versions before data. */
  private void deleteFiles(String locationKey) {
    String versionsPrefix = ObjectKeys.join(locationKey, VERSIONS_DIR) + "/";
    for (int pass = 0; pass < DELETE_PASSES; pass++) {
      List<ObjectInfo> objects = store.list(locationKey);
      if (objects.isEmpty()) {
        return;
      }
      objects.stream().filter(o -> o.key().startsWith(versionsPrefix)).forEach(o -> store.delete(o.key()));
      objects.stream().filter(o -> !o.key().startsWith(versionsPrefix)).forEach(o -> store.delete(o.key()));
    }
    if (!store.list(locationKey).isEmpty()) {
      LOG.warn("Files kept appearing under {} while its table was dropped; some remain", store.uriOf(locationKey));
    }
  }

  private TableVersions versionsAt(String locationKey) {
    return tableAt(locationKey).versions();
  }

  private TableOperations tableAt(String locationKey) {
    return TableOperations.of(new StorageLocation(store, locationKey));
  }

  private static List<String> parentOf(List<String> id) {
    return List.copyOf(id.subList(0, id.size() - 1));
  }

  private static void validateTableId(List<String> id) {
    if (id.isEmpty()) {
      throw new InvalidCatalogInputException("A table identifier needs at least a table name");
    }
    Identifiers.validate(id);
  }
}
