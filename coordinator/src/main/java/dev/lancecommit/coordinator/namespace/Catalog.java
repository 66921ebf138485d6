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
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Predicate;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The namespace and table catalog, kept in the warehouse itself under {@code {warehouse}/_catalog/} as append-only
 * revision logs (layout: {@link CatalogLayout}, documents: {@link CatalogFiles}).
 *
 * <p>Sharing a warehouse: every change writes the entry's next revision with put-if-absent, the only conditional
 * write this needs from the store. Of two coordinators changing one entry at the same time exactly one creates the
 * revision; the other re-reads the entry, re-checks its preconditions on the new state and tries the next revision
 * (at most {@value #MAX_UPDATE_ATTEMPTS} times, then {@link CatalogConcurrentUpdateException}). So no update is
 * lost: each successful call is one revision, in a single order. Creating an entry inside a namespace and dropping
 * that namespace both re-check the other side after writing and undo their own write if they raced, so a dropped
 * namespace never keeps a live child.
 *
 * <p>Decisions: the root namespace always exists and is never stored; tables directly under the root are allowed;
 * a table's default location is {@code {warehouse}/{namespace parts...}/{table}.lance} and namespace names may not
 * end in {@code .lance}, so default locations never nest; explicit locations must lie in the warehouse store.
 * Tables are never moved: rename keeps the location, deregister and namespace drops keep the data, and any table
 * stays openable by its location with no coordinator running. Only DropTable deletes files, and only inside the
 * warehouse and when no other catalogued table uses them.
 *
 * <p>Every method blocks on the object store: call it from a worker thread, never from an event loop. Table
 * lookups for commits ({@link #loadTable}) are cached for a short time; a change made by another coordinator is
 * seen here once the cache entry expires. Everything else reads the newest revision.
 */
public final class Catalog {
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(2);
  static final String CATALOG_DIR = "_catalog";
  static final int MAX_UPDATE_ATTEMPTS = 16;
  private static final Logger LOG = LoggerFactory.getLogger(Catalog.class);
  private static final String VERSIONS_DIR = ManifestNaming.VERSIONS_DIR;
  private static final int DELETE_PASSES = 3;

  private final ObjectStore store;
  private final String warehouseKey;
  private final CatalogLayout layout;
  private final Locations locations;
  private final Clock clock;
  private final RevisionLog<NamespaceRecord> namespaces;
  private final RevisionLog<TableRecord> tables;
  private final Cache<List<String>, TableEntry> tableCache;

  /** A catalog for the warehouse at {@code warehouse}, with the default cache TTL. */
  public Catalog(StorageLocation warehouse) {
    this(warehouse, DEFAULT_CACHE_TTL, Clock.systemUTC());
  }

  /**
   * @param warehouse the warehouse root: the store and the key prefix of the warehouse in it
   * @param cacheTtl how long {@link #loadTable} answers from memory; {@link Duration#ZERO} disables the cache
   * @param clock source of {@code created_at} and {@code updated_at}
   */
  public Catalog(StorageLocation warehouse, Duration cacheTtl, Clock clock) {
    this.store = warehouse.store();
    this.warehouseKey = warehouse.rootKey();
    String base = warehouse.key(CATALOG_DIR);
    this.layout = new CatalogLayout(base);
    this.locations = new Locations(store, base);
    this.clock = clock;
    this.namespaces = new RevisionLog<>(store, layout, CatalogFiles::readNamespace);
    this.tables = new RevisionLog<>(store, layout, CatalogFiles::readTable);
    this.tableCache = Caffeine.newBuilder().expireAfterWrite(cacheTtl).maximumSize(100_000).build();
  }

  // ---------------------------------------------------------------- namespaces

  public Optional<NamespaceEntry> loadNamespace(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.of(NamespaceEntry.root());
    }
    return namespaces.latest(layout.namespaceDir(id)).flatMap(r -> r.value().live());
  }

  public boolean namespaceExists(List<String> id) {
    return loadNamespace(id).isPresent();
  }

  /**
   * Creates a namespace; its parent must exist. {@link CreateMode#OVERWRITE} replaces the properties of an existing
   * namespace but refuses one that holds tables or namespaces: this catalog never drops tables implicitly.
   *
   * @return the namespace as it is after the call (for EXIST_OK on an existing one: unchanged)
   */
  public NamespaceEntry createNamespace(List<String> id, CreateMode mode, Map<String, String> properties) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      if (mode == CreateMode.EXIST_OK) {
        return NamespaceEntry.root();
      }
      throw new NamespaceAlreadyExistsException(id);
    }
    String name = id.get(id.size() - 1);
    if (name.endsWith(".lance")) {
      throw new InvalidCatalogInputException(
          "Namespace name '" + name + "' must not end in '.lance': that suffix marks table directories");
    }
    List<String> parent = parentOf(id);
    requireNamespace(parent);
    Mutation<NamespaceRecord> m = mutateNamespace(id, current -> {
      if (current.isPresent() && current.get().active()) {
        switch (mode) {
          case EXIST_OK:
            return current.get();
          case OVERWRITE:
            requireEmpty(id, "Overwrite would drop them, which this coordinator never does implicitly");
            return current.get().withProperties(properties);
          case CREATE:
          default:
            throw new NamespaceAlreadyExistsException(id);
        }
      }
      return NamespaceRecord.create(id, properties, now());
    });
    if (m.created()) {
      confirmParent(parent, () -> undoNamespace(id, m.after()));
    }
    return m.after().live().orElseThrow();
  }

  /**
   * A page of the names of the namespaces directly in {@code parent}, in name order, keeping those {@code visible}
   * accepts (it sees the full identifier).
   */
  public Page<String> listNamespaces(List<String> parent, Optional<String> after, int limit,
      Predicate<List<String>> visible) {
    Identifiers.validate(parent);
    requireNamespace(parent);
    checkLimit(limit);
    List<String> names = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate : latestRevisions(layout.namespacesIn(parent),
        CatalogLayout.Kind.NAMESPACE).entrySet()) {
      List<String> id = candidate.getKey();
      String name = id.get(id.size() - 1);
      if (after.isPresent() && name.compareTo(after.get()) <= 0 || !visible.test(id)) {
        continue;
      }
      if (readable(() -> namespaces.read(layout.namespaceDir(id), candidate.getValue()).value().active())) {
        names.add(name);
        if (names.size() > limit) {
          break;
        }
      }
    }
    return page(names, limit);
  }

  /**
   * Drops a namespace (never the root). {@link DropBehavior#CASCADE} first drops its child namespaces and
   * deregisters every table below it, keeping their data.
   *
   * @return the dropped namespace, or empty when it did not exist and {@code mode} is {@link DropMode#SKIP}
   */
  public Optional<NamespaceEntry> dropNamespace(List<String> id, DropMode mode, DropBehavior behavior) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      throw new InvalidCatalogInputException("The root namespace cannot be dropped");
    }
    Optional<NamespaceEntry> existing = loadNamespace(id);
    if (existing.isEmpty()) {
      if (mode == DropMode.SKIP) {
        return Optional.empty();
      }
      throw new NamespaceNotFoundException(id);
    }
    if (behavior == DropBehavior.RESTRICT) {
      requireEmpty(id, "drop it with behavior Cascade or empty it first");
    } else {
      cascade(id);
    }
    Mutation<NamespaceRecord> m;
    try {
      m = mutateNamespace(id, current -> {
        if (current.isEmpty() || !current.get().active()) {
          throw new NamespaceNotFoundException(id);
        }
        return current.get().dropped();
      });
    } catch (NamespaceNotFoundException raced) {
      if (mode == DropMode.SKIP) {
        return Optional.empty();
      }
      throw raced;
    }
    // A child created while we dropped: Restrict gives the namespace back, Cascade removes the newcomer too.
    Children late = liveChildren(id);
    if (!late.isEmpty()) {
      if (behavior == DropBehavior.RESTRICT) {
        restoreNamespace(id, m.after());
        throw new NamespaceNotEmptyException(id, "Namespace " + Identifiers.display(id) + " gained "
            + late.describe() + " while it was being dropped; it was kept");
      }
      cascade(id);
    }
    return m.before().flatMap(NamespaceRecord::live);
  }

  // ---------------------------------------------------------------- tables

  /** The live table's entry, from a short-lived cache or the store. */
  public Optional<TableEntry> loadTable(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    return Optional.ofNullable(tableCache.get(List.copyOf(id), this::readLiveTable));
  }

  /**
   * Records a table without touching its location. The parent namespace must exist and the location must not hold
   * a Lance dataset already (RegisterTable is for that).
   */
  public TableEntry declareTable(List<String> id, Optional<String> location, Map<String, String> properties) {
    validateTableId(id);
    List<String> namespace = parentOf(id);
    requireNamespace(namespace);
    String resolved = location
        .map(loc -> locations.canonical(locations.keyOf(loc)))
        .orElseGet(() -> defaultLocation(id));
    String locationKey = locations.keyOf(resolved);
    TableVersions existingData = versionsAt(locationKey);
    if (!existingData.isEmpty()) {
      throw new TableAlreadyExistsException(id, "Location '" + resolved + "' already holds a Lance dataset (version "
          + existingData.latest().getAsLong() + "); use RegisterTable to catalog it");
    }
    requireLocationFree(id, locationKey);
    Mutation<TableRecord> m = mutateTable(id, current -> {
      if (current.isPresent() && current.get().isLive()) {
        throw new TableAlreadyExistsException(id);
      }
      return TableRecord.create(id, resolved, UUID.randomUUID().toString(), TableStatus.DECLARED, properties, now());
    });
    confirmLocationFree(id, locationKey, () -> undoTable(id, m.after()));
    confirmParent(namespace, () -> undoTable(id, m.after()));
    return m.after().live().orElseThrow();
  }

  /**
   * Catalogs an existing Lance dataset: {@code location} must hold at least one manifest under {@code _versions/}.
   * The table uuid is kept when the location is the one the entry had and its data was not dropped (live,
   * deregistered, or renamed away half way), so commit event ids stay stable across deregister/register; otherwise
   * it is new. {@link RegisterMode#OVERWRITE} replaces a live entry. Refused when another live table uses files at,
   * inside or around the location.
   */
  public TableEntry registerTable(
      List<String> id, String location, RegisterMode mode, Map<String, String> properties) {
    validateTableId(id);
    List<String> namespace = parentOf(id);
    requireNamespace(namespace);
    String locationKey = locations.keyOf(location);
    String canonical = locations.canonical(locationKey);
    if (versionsAt(locationKey).isEmpty()) {
      throw new InvalidCatalogInputException(
          "Location '" + location + "' holds no Lance dataset: no manifest under " + VERSIONS_DIR + "/");
    }
    requireLocationFree(id, locationKey);
    Mutation<TableRecord> m = mutateTable(id, current -> {
      if (current.isPresent() && current.get().isLive() && mode == RegisterMode.CREATE) {
        throw new TableAlreadyExistsException(id);
      }
      // RENAMED counts too: its data is kept, and no live entry uses the location (checked above), so this is a
      // rename that stopped half way (the new entry was never written)
      Optional<TableRecord> same = current.filter(c -> c.location().equals(canonical)
          && c.status() != TableStatus.DROPPED);
      Instant now = now();
      return new TableRecord(id, canonical,
          same.map(TableRecord::tableUuid).orElseGet(() -> UUID.randomUUID().toString()), TableStatus.REGISTERED,
          properties, same.map(TableRecord::createdAt).orElse(now), now, "", Optional.empty(), Optional.empty());
    });
    if (m.created()) {
      confirmLocationFree(id, locationKey, () -> undoTable(id, m.after()));
      confirmParent(namespace, () -> undoTable(id, m.after()));
    }
    return m.after().live().orElseThrow();
  }

  /**
   * Removes a table from the catalog and keeps its data; {@link #registerTable} at the same location brings it
   * back with its uuid.
   *
   * @return the entry as it was
   */
  public TableEntry deregisterTable(List<String> id) {
    validateTableId(id);
    Mutation<TableRecord> m = mutateTable(id, current -> requireLive(id, current).withStatus(TableStatus.DEREGISTERED));
    return m.before().flatMap(TableRecord::live).orElseThrow();
  }

  /**
   * Removes a table from the catalog and deletes every file under its location. Refused (nothing changed) when the
   * location is not inside the warehouse or another catalogued table, live or deregistered, uses files at, inside or
   * around it.
   *
   * @return the entry as it was
   */
  public TableEntry dropTable(List<String> id) {
    validateTableId(id);
    TableRecord target = tables.latest(layout.tableDir(id)).map(RevisionLog.Revision::value)
        .filter(TableRecord::isLive)
        .orElseThrow(() -> new TableNotFoundException(id));
    String locationKey = droppableLocation(target);
    Mutation<TableRecord> m = mutateTable(id, current -> {
      TableRecord live = requireLive(id, current);
      if (!live.tableUuid().equals(target.tableUuid()) || !live.location().equals(target.location())) {
        throw new CatalogConcurrentUpdateException("Table " + Identifiers.display(id)
            + " was replaced while it was being dropped; nothing was deleted");
      }
      return live.withStatus(TableStatus.DROPPED);
    });
    deleteFiles(locationKey);
    return m.before().flatMap(TableRecord::live).orElseThrow();
  }

  /**
   * Gives a table another identifier (another name, or another namespace). The location, table uuid and properties
   * stay; the old identifier is free afterwards. Two entries change: the old one first (so there is never a moment
   * with two live entries for one table), then the new one; a failure in between puts the old one back. Should the
   * process die in between, the table is in no live entry; RegisterTable of the old identifier at the same location
   * brings it back with its uuid.
   *
   * @return the entry under its new identifier
   */
  public TableEntry renameTable(List<String> id, List<String> newId) {
    validateTableId(id);
    validateTableId(newId);
    if (id.equals(newId)) {
      throw new InvalidCatalogInputException("Table " + Identifiers.display(id) + " already has that identifier");
    }
    List<String> targetNamespace = parentOf(newId);
    if (loadLiveTable(id).isEmpty()) {
      throw new TableNotFoundException(id);
    }
    requireNamespace(targetNamespace);
    if (loadLiveTable(newId).isPresent()) {
      throw new TableAlreadyExistsException(newId);
    }
    Mutation<TableRecord> left = mutateTable(id, current -> requireLive(id, current).renamedTo(newId));
    TableRecord original = left.before().orElseThrow();
    Mutation<TableRecord> arrived;
    try {
      arrived = mutateTable(newId, current -> {
        if (current.isPresent() && current.get().isLive()) {
          throw new TableAlreadyExistsException(newId);
        }
        return original.movedTo(newId);
      });
    } catch (RuntimeException e) {
      restoreTable(id, left.after(), original);
      throw e;
    }
    try {
      confirmParent(targetNamespace, () -> undoTable(newId, arrived.after()));
    } catch (NamespaceNotFoundException e) {
      restoreTable(id, left.after(), original);
      throw e;
    }
    return arrived.after().live().orElseThrow();
  }

  /**
   * A page of the names of the live tables directly in {@code namespace}, in name order, keeping those
   * {@code visible} accepts. Without {@code includeDeclared}, declared tables that have no version yet are left out.
   */
  public Page<String> listTables(List<String> namespace, Optional<String> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    Identifiers.validate(namespace);
    requireNamespace(namespace);
    checkLimit(limit);
    List<String> names = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate
        : latestRevisions(layout.tablesIn(namespace), CatalogLayout.Kind.TABLE).entrySet()) {
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
    return page(names, limit);
  }

  /** Like {@link #listTables}, across every namespace: full identifiers ordered part by part. */
  public Page<List<String>> listAllTables(Optional<List<String>> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    checkLimit(limit);
    List<List<String>> ids = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate
        : latestRevisions(layout.treeBase(), CatalogLayout.Kind.TABLE).entrySet()) {
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
    return page(ids, limit);
  }

  /**
   * Every live table in the warehouse, in identifier order, skipping (with a warning) entries that cannot be read.
   * One listing of the whole catalog plus a read of each table's newest revision not read before.
   */
  public List<TableEntry> liveTables() {
    List<TableEntry> live = new ArrayList<>();
    latestRevisions(layout.treeBase(), CatalogLayout.Kind.TABLE).forEach((id, revision) -> {
      try {
        tables.read(layout.tableDir(id), revision).value().live().ifPresent(live::add);
      } catch (CorruptCatalogEntryException e) {
        LOG.warn("Skipping catalog entry: {}", e.getMessage());
      }
    });
    return live;
  }

  /**
   * The live table whose files hold {@code location}: the table at that location, or the one it lies inside (a
   * branch under {@code tree/}); empty when no catalogued table holds it, also for a location outside the
   * warehouse's store.
   */
  public Optional<TableEntry> liveTableHolding(String location) {
    String key;
    try {
      key = locations.keyOf(location);
    } catch (InvalidCatalogInputException elsewhere) {
      return Optional.empty();
    }
    TableEntry holder = null;
    String holderKey = "";
    for (TableEntry table : liveTables()) {
      String tableKey;
      try {
        tableKey = locations.keyOf(table.location());
      } catch (InvalidCatalogInputException elsewhere) {
        continue;
      }
      if ((key.equals(tableKey) || key.startsWith(tableKey + "/")) && tableKey.length() > holderKey.length()) {
        holder = table;
        holderKey = tableKey;
      }
    }
    return Optional.ofNullable(holder);
  }

  /** The versions whose manifests are in the table's {@code _versions/} directory now (both naming schemes). */
  public TableVersions listVersions(TableEntry table) {
    return versionsAt(locations.keyOf(table.location()));
  }

  /** Every version in the table's {@code _versions/} directory with its manifest's size and write time, ascending. */
  public List<VersionFile> versionFiles(TableEntry table) {
    return tableAt(locations.keyOf(table.location())).versionFiles();
  }

  /**
   * The decoded manifest of one version of a table.
   *
   * @throws TableVersionNotFoundException when the table has no such version (any more)
   */
  public ManifestFile readManifest(TableEntry table, long version) {
    return tableAt(locations.keyOf(table.location())).readVersion(version)
        .orElseThrow(() -> new TableVersionNotFoundException(table.id(), version));
  }

  /** {@code {warehouse}/{namespace parts...}/{table}.lance}. */
  public String defaultLocation(List<String> id) {
    validateTableId(id);
    List<String> segments = new ArrayList<>(id);
    segments.set(segments.size() - 1, segments.get(segments.size() - 1) + ".lance");
    String key = warehouseKey;
    for (String segment : segments) {
      key = ObjectKeys.join(key, segment);
    }
    return locations.canonical(key);
  }

  /** The table location as a complete URI ({@code file://} for local paths). */
  public String tableUri(TableEntry table) {
    return Locations.toUri(table.location());
  }

  // ---------------------------------------------------------------- revisions

  /** What one {@code mutate} call did: the newest revision before, and the one written (or kept). */
  private record Mutation<T>(Optional<T> before, T after, boolean written, boolean created) {}

  /**
   * Applies {@code change} to the newest revision and writes the result as the next one. {@code change} throws to
   * refuse, returns its argument unchanged (or null when there is none) to write nothing, or returns the new
   * content. Re-run on a fresh read
   * when another writer took the revision first.
   */
  private Mutation<TableRecord> mutateTable(List<String> id,
      Function<Optional<TableRecord>, TableRecord> change) {
    String dir = layout.tableDir(id);
    try {
      return mutate(dir, tables, change, TableRecord::isLive,
          (record, now) -> record.stamped(now, UUID.randomUUID().toString()), CatalogFiles::write,
          Identifiers.display(id));
    } finally {
      tableCache.invalidate(List.copyOf(id));
    }
  }

  private Mutation<NamespaceRecord> mutateNamespace(List<String> id,
      Function<Optional<NamespaceRecord>, NamespaceRecord> change) {
    return mutate(layout.namespaceDir(id), namespaces, change, NamespaceRecord::active,
        (record, now) -> record.stamped(now, UUID.randomUUID().toString()), CatalogFiles::write,
        Identifiers.display(id));
  }

  private interface Stamp<T> {
    T apply(T record, Instant now);
  }

  private interface Encoder<T> {
    byte[] encode(T record, long revision);
  }

  private <T> Mutation<T> mutate(String dir, RevisionLog<T> log, Function<Optional<T>, T> change,
      Predicate<T> live, Stamp<T> stamp, Encoder<T> encoder, String display) {
    for (int attempt = 1; ; attempt++) {
      Optional<RevisionLog.Revision<T>> newest = log.latest(dir);
      Optional<T> current = newest.map(RevisionLog.Revision::value);
      T proposed = change.apply(current);
      if (proposed == null || current.isPresent() && proposed == current.get()) {
        return new Mutation<>(current, current.orElse(null), false, false);
      }
      T next = stamp.apply(proposed, now());
      long revision = newest.map(r -> r.number() + 1).orElse(1L);
      try {
        log.append(dir, revision, encoder.encode(next, revision), next);
        boolean created = live.test(next) && current.map(c -> !live.test(c)).orElse(true);
        return new Mutation<>(current, next, true, created);
      } catch (ObjectAlreadyExistsException raced) {
        if (attempt >= MAX_UPDATE_ATTEMPTS) {
          throw new CatalogConcurrentUpdateException("Catalog entry " + display + " changed " + attempt
              + " times while this request tried to update it; nothing was changed, retry");
        }
        LOG.debug("Revision {} of {} was taken by another writer; re-reading", revision, display);
      }
    }
  }

  /** Takes back our own write (if it is still the newest revision) after a refused creation. */
  private void undoTable(List<String> id, TableRecord ours) {
    mutateTable(id, current -> current.filter(c -> c.revisionId().equals(ours.revisionId()))
        .map(c -> c.withStatus(TableStatus.DEREGISTERED))
        .orElse(current.orElse(null)));
  }

  private void undoNamespace(List<String> id, NamespaceRecord ours) {
    mutateNamespace(id, current -> current.filter(c -> c.revisionId().equals(ours.revisionId()))
        .map(NamespaceRecord::dropped)
        .orElse(current.orElse(null)));
  }

  /** Puts a renamed-away table back under its old identifier, unless someone changed that identifier since. */
  private void restoreTable(List<String> id, TableRecord ourTombstone, TableRecord original) {
    try {
      mutateTable(id, current -> current.filter(c -> c.revisionId().equals(ourTombstone.revisionId()))
          .map(c -> original)
          .orElse(current.orElse(null)));
    } catch (RuntimeException e) {
      LOG.error("Rename of {} failed and the table could not be put back under its old identifier; its data is "
          + "intact at {} and can be registered again", Identifiers.display(id), original.location(), e);
    }
  }

  private void restoreNamespace(List<String> id, NamespaceRecord ourTombstone) {
    mutateNamespace(id, current -> current.filter(c -> c.revisionId().equals(ourTombstone.revisionId()))
        .map(NamespaceRecord::restored)
        .orElse(current.orElse(null)));
  }

  // ---------------------------------------------------------------- internals

  private TableEntry readLiveTable(List<String> id) {
    return loadLiveTable(id).orElse(null);
  }

  private Optional<TableEntry> loadLiveTable(List<String> id) {
    return tables.latest(layout.tableDir(id)).flatMap(r -> r.value().live());
  }

  private static TableRecord requireLive(List<String> id, Optional<TableRecord> current) {
    return current.filter(TableRecord::isLive).orElseThrow(() -> new TableNotFoundException(id));
  }

  /** After creating a child: if its parent was dropped meanwhile, undo the child and report the parent missing. */
  private void confirmParent(List<String> parent, Runnable undo) {
    if (!parent.isEmpty() && !namespaceExists(parent)) {
      undo.run();
      throw new NamespaceNotFoundException(parent);
    }
  }

  private boolean listable(List<String> id, long revision, boolean includeDeclared) {
    return readable(() -> {
      TableRecord record = tables.read(layout.tableDir(id), revision).value();
      if (!record.isLive()) {
        return false;
      }
      return includeDeclared || record.status() != TableStatus.DECLARED
          || !versionsAt(locations.keyOf(record.location())).isEmpty();
    });
  }

  /** Listings skip an entry whose newest revision cannot be parsed, so one broken file does not hide the rest. */
  private static boolean readable(java.util.function.BooleanSupplier check) {
    try {
      return check.getAsBoolean();
    } catch (CorruptCatalogEntryException e) {
      LOG.warn("Listing skips a catalog entry: {}", e.getMessage());
      return false;
    }
  }

  /** The newest revision number of every entry of {@code kind} found under {@code prefix}, in identifier order. */
  private SortedMap<List<String>, Long> latestRevisions(String prefix, CatalogLayout.Kind kind) {
    SortedMap<List<String>, Long> newest = new TreeMap<>(Identifiers.ORDER);
    for (ObjectInfo info : store.list(prefix)) {
      layout.locate(info.key()).filter(l -> l.kind() == kind)
          .ifPresent(l -> newest.merge(l.id(), l.revision(), Math::max));
    }
    return newest;
  }

  /** The live namespaces and tables directly in a namespace. */
  private record Children(List<List<String>> namespaces, List<List<String>> tables) {
    boolean isEmpty() {
      return namespaces.isEmpty() && tables.isEmpty();
    }

    String describe() {
      return !tables.isEmpty() ? "table " + Identifiers.display(tables.get(0))
          : "namespace " + Identifiers.display(namespaces.get(0));
    }
  }

  private Children liveChildren(List<String> id) {
    List<List<String>> childNamespaces = new ArrayList<>();
    latestRevisions(layout.namespacesIn(id), CatalogLayout.Kind.NAMESPACE).forEach((child, revision) -> {
      if (namespaces.read(layout.namespaceDir(child), revision).value().active()) {
        childNamespaces.add(child);
      }
    });
    List<List<String>> childTables = new ArrayList<>();
    latestRevisions(layout.tablesIn(id), CatalogLayout.Kind.TABLE).forEach((child, revision) -> {
      if (tables.read(layout.tableDir(child), revision).value().isLive()) {
        childTables.add(child);
      }
    });
    return new Children(childNamespaces, childTables);
  }

  private void requireEmpty(List<String> id, String hint) {
    Children children = liveChildren(id);
    if (!children.isEmpty()) {
      throw new NamespaceNotEmptyException(id, "Namespace " + Identifiers.display(id) + " holds "
          + children.describe() + (children.namespaces().size() + children.tables().size() > 1 ? " and more" : "")
          + "; " + hint);
    }
  }

  /** Deregisters every table below {@code id} and drops every namespace below it (not {@code id} itself). */
  private void cascade(List<String> id) {
    Children children = liveChildren(id);
    for (List<String> table : children.tables()) {
      try {
        deregisterTable(table);
      } catch (TableNotFoundException gone) {
        // removed by someone else meanwhile
      }
    }
    for (List<String> child : children.namespaces()) {
      dropNamespace(child, DropMode.SKIP, DropBehavior.CASCADE);
    }
  }

  /**
   * The location check again, after our entry is written: two requests for one new location can both pass
   * {@link #requireLocationFree} before either writes. Whoever finds the other's entry after writing its own takes
   * its entry back and fails, so at most one survives; when both find each other both fail, and a retry settles it.
   */
  private void confirmLocationFree(List<String> id, String locationKey, Runnable undo) {
    Optional<TableRecord> other = liveTableOverlapping(id, locationKey);
    if (other.isPresent()) {
      undo.run();
      throw new CatalogConcurrentUpdateException("Table " + Identifiers.display(other.get().id()) + " was given "
          + other.get().location() + " at the same time as " + Identifiers.display(id) + "; nothing was kept for "
          + Identifiers.display(id) + ", retry");
    }
  }

  /**
   * Refuses a location at, inside or around the location of another live table: two entries committing to one
   * dataset would be two commit lanes, and dropping one would delete the other's files. Concurrent requests for one
   * new location are settled by {@link #confirmLocationFree}.
   */
  private void requireLocationFree(List<String> id, String locationKey) {
    Optional<TableRecord> other = liveTableOverlapping(id, locationKey);
    if (other.isPresent()) {
      throw new TableAlreadyExistsException(id, "Table " + Identifiers.display(other.get().id()) + " already uses "
          + other.get().location() + "; a table location may not be at, inside or around another table's location");
    }
  }

  private Optional<TableRecord> liveTableOverlapping(List<String> id, String locationKey) {
    for (Map.Entry<List<String>, Long> other
        : latestRevisions(layout.treeBase(), CatalogLayout.Kind.TABLE).entrySet()) {
      if (other.getKey().equals(id)) {
        continue;
      }
      TableRecord record = tables.read(layout.tableDir(other.getKey()), other.getValue()).value();
      if (record.isLive() && overlaps(locationKey, record.location())) {
        return Optional.of(record);
      }
    }
    return Optional.empty();
  }

  private boolean overlaps(String locationKey, String otherLocation) {
    String otherKey;
    try {
      otherKey = locations.keyOf(otherLocation);
    } catch (InvalidCatalogInputException elsewhere) {
      return false;
    }
    return otherKey.equals(locationKey) || otherKey.startsWith(locationKey + "/")
        || locationKey.startsWith(otherKey + "/");
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
    for (Map.Entry<List<String>, Long> other
        : latestRevisions(layout.treeBase(), CatalogLayout.Kind.TABLE).entrySet()) {
      if (other.getKey().equals(target.id())) {
        continue;
      }
      TableRecord record = tables.read(layout.tableDir(other.getKey()), other.getValue()).value();
      boolean keptData = record.status() == TableStatus.DEREGISTERED
          && !record.location().equals(target.location()); // the same dataset, registered again as this table
      if ((record.isLive() || keptData) && overlaps(key, record.location())) {
        throw new TableDropRefusedException(target.id(), "Table " + Identifiers.display(target.id())
            + " shares files with " + (record.isLive() ? "table " : "deregistered table ")
            + Identifiers.display(record.id()) + " at " + record.location()
            + "; nothing was deleted. Use DeregisterTable to remove it from the catalog.");
      }
    }
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

  private void requireNamespace(List<String> id) {
    if (!namespaceExists(id)) {
      throw new NamespaceNotFoundException(id);
    }
  }

  private static <T> Page<T> page(List<T> items, int limit) {
    if (items.size() > limit) {
      List<T> shown = items.subList(0, limit);
      return new Page<>(shown, Optional.of(shown.get(shown.size() - 1)));
    }
    return new Page<>(items, Optional.empty());
  }

  private static void checkLimit(int limit) {
    if (limit < 1) {
      throw new InvalidCatalogInputException("A page limit must be at least 1, got " + limit);
    }
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

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}
