package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.coordinator.table.VersionVisibility;
import dev.lancecommit.format.ManifestFile;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Predicate;

/**
 * The namespace and table catalog of one warehouse, kept in the warehouse itself under {@code {warehouse}/_catalog/}:
 * the entry point the HTTP routes and the coordinator use. It is made of
 * <ul>
 *   <li>{@link CatalogStore}: the append-only revision logs of namespace and table entries ({@link CatalogLayout},
 *       {@link CatalogFiles}), changed only through {@link RevisionLog#mutate};
 *   <li>{@link NamespaceCatalog} and {@link TableCatalog} on top of it: the rules of namespaces and of the table
 *       life cycle;
 *   <li>{@link LocationRegistry}: one claim per table location, so that no two catalogued tables use the same or
 *       nested locations, at a cost that does not grow with the number of tables.
 * </ul>
 *
 * <p>Sharing a warehouse: every change writes the entry's (or claim's) next revision with put-if-absent, the only
 * conditional write this needs from the store. Of two coordinators changing one entry at the same time exactly one
 * creates the revision; the other re-reads the entry, re-checks its preconditions on the new state and tries the next
 * revision (at most 16 times, then {@link CatalogConcurrentUpdateException}).
 * So no update is lost: each successful call is one revision, in a single order. A dropped namespace never keeps a
 * live child, and two tables never keep one location (see {@link LocationRegistry} for the order of writes and how a
 * coordinator killed half way is recovered from).
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

  private final NamespaceCatalog namespaces;
  private final TableCatalog tables;
  private final VersionVisibility visibility;

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
    this(warehouse, cacheTtl, clock, VersionVisibility.ALL);
  }

  /** @param visibility versions readers must not see yet (those of unfinished atomic batches) */
  public Catalog(StorageLocation warehouse, Duration cacheTtl, Clock clock, VersionVisibility visibility) {
    this.visibility = visibility;
    CatalogStore entries = new CatalogStore(warehouse, clock);
    Locations locations = new Locations(entries.objectStore(), entries.catalogBase());
    LocationRegistry registry = new LocationRegistry(entries, locations, clock);
    this.tables = new TableCatalog(entries, locations, registry, cacheTtl);
    this.namespaces = new NamespaceCatalog(entries, tables);
  }

  // ---------------------------------------------------------------- namespaces

  public Optional<NamespaceEntry> loadNamespace(List<String> id) {
    return namespaces.loadNamespace(id);
  }

  public boolean namespaceExists(List<String> id) {
    return namespaces.loadNamespace(id).isPresent();
  }

  /**
   * Creates a namespace; its parent must exist. {@link CreateMode#OVERWRITE} replaces the properties of an existing
   * namespace but refuses one that holds tables or namespaces: this catalog never drops tables implicitly.
   *
   * @return the namespace as it is after the call (for EXIST_OK on an existing one: unchanged)
   */
  public NamespaceEntry createNamespace(List<String> id, CreateMode mode, Map<String, String> properties) {
    return namespaces.createNamespace(id, mode, properties);
  }

  /**
   * A page of the names of the namespaces directly in {@code parent}, in name order, keeping those {@code visible}
   * accepts (it sees the full identifier).
   */
  public Page<String> listNamespaces(List<String> parent, Optional<String> after, int limit,
      Predicate<List<String>> visible) {
    return namespaces.listNamespaces(parent, after, limit, visible);
  }

  /**
   * Drops a namespace (never the root). {@link DropBehavior#CASCADE} first drops its child namespaces and
   * deregisters every table below it, keeping their data.
   *
   * @return the dropped namespace, or empty when it did not exist and {@code mode} is {@link DropMode#SKIP}
   */
  public Optional<NamespaceEntry> dropNamespace(List<String> id, DropMode mode, DropBehavior behavior) {
    return namespaces.dropNamespace(id, mode, behavior);
  }

  // ---------------------------------------------------------------- tables

  /** The live table's entry, from a short-lived cache or the store. */
  public Optional<TableEntry> loadTable(List<String> id) {
    return tables.loadTable(id);
  }

  /** The live table's entry if the short-lived cache holds it; never reads the store (safe on an event loop). */
  public Optional<TableEntry> cachedTable(List<String> id) {
    return tables.cachedTable(id);
  }

  /**
   * Records a table without touching its location. The parent namespace must exist, the location must not hold a
   * Lance dataset already (RegisterTable is for that), and no other live table may use it or a location around or
   * inside it.
   */
  public TableEntry declareTable(List<String> id, Optional<String> location, Map<String, String> properties) {
    return tables.declareTable(id, location, properties);
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
    return tables.registerTable(id, location, mode, properties);
  }

  /**
   * Removes a table from the catalog and keeps its data; {@link #registerTable} at the same location brings it
   * back with its uuid.
   *
   * @return the entry as it was
   */
  public TableEntry deregisterTable(List<String> id) {
    return tables.deregisterTable(id);
  }

  /**
   * Removes a table from the catalog and deletes every file under its location. Refused (nothing changed) when the
   * location is not inside the warehouse or another catalogued table, live or deregistered, uses files at, inside or
   * around it.
   *
   * @return the entry as it was
   */
  public TableEntry dropTable(List<String> id) {
    return tables.dropTable(id);
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
    return tables.renameTable(id, newId);
  }

  /**
   * The revisions of a table's entry written at or after {@code since}, oldest first (to find what a catalog change
   * that was under way when a process died did). Blocking.
   */
  public List<TableChange> tableChangesSince(List<String> id, Instant since) {
    return tables.changesSince(id, since);
  }

  /**
   * A page of the names of the live tables directly in {@code namespace}, in name order, keeping those
   * {@code visible} accepts. Without {@code includeDeclared}, declared tables that have no version yet are left out.
   */
  public Page<String> listTables(List<String> namespace, Optional<String> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    return tables.listTables(namespace, after, limit, includeDeclared, visible);
  }

  /** Like {@link #listTables}, across every namespace: full identifiers ordered part by part. */
  public Page<List<String>> listAllTables(Optional<List<String>> after, int limit, boolean includeDeclared,
      Predicate<List<String>> visible) {
    return tables.listAllTables(after, limit, includeDeclared, visible);
  }

  /**
   * Every live table in the warehouse, in identifier order, skipping (with a warning) entries that cannot be read.
   * One listing of the whole catalog plus a read of each table's newest revision not read before.
   */
  public List<TableEntry> liveTables() {
    return tables.liveTables();
  }

  /**
   * The live table whose files hold {@code location}: the table at that location, or the one it lies inside (a
   * branch under {@code tree/}); empty when no catalogued table holds it, also for a location outside the
   * warehouse's store. Reads the location registry at the location and the directories above it only.
   */
  public Optional<TableEntry> liveTableHolding(String location) {
    return tables.liveTableHolding(location);
  }

  /**
   * The versions whose manifests are in the table's {@code _versions/} directory now (both naming schemes), less
   * the versions of an unfinished atomic batch ({@link VersionVisibility}).
   */
  public TableVersions listVersions(TableEntry table) {
    TableVersions listed = tables.listVersions(table);
    OptionalLong hidden = visibility.hiddenFrom(table.location());
    return hidden.isPresent() ? listed.before(hidden.getAsLong()) : listed;
  }

  /**
   * Every version in the table's {@code _versions/} directory with its manifest's size and write time, ascending;
   * less the versions of an unfinished atomic batch.
   */
  public List<VersionFile> versionFiles(TableEntry table) {
    List<VersionFile> files = tables.versionFiles(table);
    OptionalLong hidden = visibility.hiddenFrom(table.location());
    return hidden.isEmpty() ? files : files.stream().filter(f -> f.version() < hidden.getAsLong()).toList();
  }

  /**
   * The latest version of the table a namespace reader may see, without listing every version where the store
   * allows it (what stock clients ask before each managed-versioning commit: {@code version/list} with
   * {@code limit=1}, newest first). Empty when the table has no version.
   */
  public Optional<VersionFile> latestVersionFile(TableEntry table) {
    if (visibility.hiddenFrom(table.location()).isPresent()) {
      List<VersionFile> files = versionFiles(table); // an unfinished batch: the listing, less its versions
      return files.isEmpty() ? Optional.empty() : Optional.of(files.get(files.size() - 1));
    }
    return tables.latestVersionFile(table);
  }

  /**
   * One version of the table a namespace reader may see, looked up by its manifest's name (no listing: what stock
   * clients ask to open the version their commit starts from). Empty when the table has no such version (any more),
   * or it belongs to an unfinished atomic batch.
   */
  public Optional<VersionFile> versionFile(TableEntry table, long version) {
    OptionalLong hidden = visibility.hiddenFrom(table.location());
    if (hidden.isPresent() && version >= hidden.getAsLong()) {
      return Optional.empty();
    }
    return tables.versionFile(table, version);
  }

  /**
   * The decoded manifest of one version of a table.
   *
   * @throws TableVersionNotFoundException when the table has no such version (any more), or it belongs to an
   *     unfinished atomic batch
   */
  public ManifestFile readManifest(TableEntry table, long version) {
    OptionalLong hidden = visibility.hiddenFrom(table.location());
    if (hidden.isPresent() && version >= hidden.getAsLong()) {
      throw new TableVersionNotFoundException(table.id(), version);
    }
    return tables.readManifest(table, version);
  }

  /** {@code {warehouse}/{namespace parts...}/{table}.lance}. */
  public String defaultLocation(List<String> id) {
    return tables.defaultLocation(id);
  }

  /** The table location as a complete URI ({@code file://} for local paths). */
  public String tableUri(TableEntry table) {
    return Locations.toUri(table.location());
  }
}
