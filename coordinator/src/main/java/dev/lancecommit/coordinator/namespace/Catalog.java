package dev.lancecommit.coordinator.namespace;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectKeys;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeSet;
import java.util.UUID;

/**
 * The namespace and table catalog, kept in the warehouse itself under {@code {warehouse}/_catalog/}:
 * {@code namespaces/<encoded id>.json} and {@code tables/<encoded id>.json} (see {@link Identifiers#encode}).
 * Entries are created with put-if-absent, so coordinators sharing a warehouse never both create one entry.
 *
 * <p>Decisions: the root namespace always exists and is never stored; tables directly under the root (one-part
 * ids) are allowed, like Lance's directory namespace; a table's default location is
 * {@code {warehouse}/{namespace parts...}/{table}.lance}, and namespace names may not end in {@code .lance} so a
 * default table location never nests inside another table; an explicit location must lie in the warehouse store.
 *
 * <p>Every method blocks on the object store: call it from a worker thread, never from an event loop. Table
 * lookups are cached for a short time because every commit makes one; an entry another coordinator replaced
 * (RegisterTable with mode Overwrite) is seen here once the cache entry expires.
 */
public final class Catalog {
  public static final Duration DEFAULT_CACHE_TTL = Duration.ofSeconds(2);
  static final String CATALOG_DIR = "_catalog";
  private static final String SUFFIX = ".json";
  private static final String VERSIONS_DIR = "_versions";
  private static final int MAX_KEY_LENGTH = 1024;

  private final ObjectStore store;
  private final String warehouseKey;
  private final String namespacesBase;
  private final String tablesBase;
  private final Locations locations;
  private final Clock clock;
  private final Cache<List<String>, TableEntry> tableCache;

  /** A catalog for the warehouse at {@code warehouse}, with the default cache TTL. */
  public Catalog(StorageLocation warehouse) {
    this(warehouse, DEFAULT_CACHE_TTL, Clock.systemUTC());
  }

  /**
   * @param warehouse the warehouse root: the store and the key prefix of the warehouse in it
   * @param cacheTtl how long a table lookup is served from memory; {@link Duration#ZERO} disables the cache
   * @param clock source of {@code created_at}
   */
  public Catalog(StorageLocation warehouse, Duration cacheTtl, Clock clock) {
    this.store = warehouse.store();
    this.warehouseKey = warehouse.rootKey();
    String base = warehouse.key(CATALOG_DIR);
    this.namespacesBase = ObjectKeys.join(base, "namespaces");
    this.tablesBase = ObjectKeys.join(base, "tables");
    this.locations = new Locations(store, base);
    this.clock = clock;
    this.tableCache = Caffeine.newBuilder().expireAfterWrite(cacheTtl).maximumSize(100_000).build();
  }

  // ---------------------------------------------------------------- namespaces

  public Optional<NamespaceEntry> loadNamespace(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.of(NamespaceEntry.root());
    }
    String key = namespaceKey(id);
    return store.get(key).map(data -> CatalogFiles.readNamespace(key, data));
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
    requireNamespace(id.subList(0, id.size() - 1));
    String key = namespaceKey(id);
    NamespaceEntry entry = new NamespaceEntry(id, properties, now());
    switch (mode) {
      case OVERWRITE:
        if (store.head(key).isPresent()) {
          requireEmpty(id);
        }
        store.put(key, CatalogFiles.write(entry));
        return entry;
      case EXIST_OK:
        Optional<NamespaceEntry> existing = loadNamespace(id);
        if (existing.isPresent()) {
          return existing.get();
        }
        try {
          createOnce(key, CatalogFiles.write(entry));
          return entry;
        } catch (ObjectAlreadyExistsException raced) {
          return loadNamespace(id).orElseThrow(() -> new NamespaceNotFoundException(id));
        }
      case CREATE:
      default:
        try {
          createOnce(key, CatalogFiles.write(entry));
          return entry;
        } catch (ObjectAlreadyExistsException e) {
          throw new NamespaceAlreadyExistsException(id);
        }
    }
  }

  // ---------------------------------------------------------------- tables

  /** The table's entry, from a short-lived cache or the store. */
  public Optional<TableEntry> loadTable(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.empty();
    }
    List<String> cacheKey = List.copyOf(id);
    return Optional.ofNullable(tableCache.get(cacheKey, this::readTable));
  }

  /** Records a table without touching its location. The parent namespace must exist. */
  public TableEntry declareTable(List<String> id, Optional<String> location, Map<String, String> properties) {
    validateTableId(id);
    requireNamespace(id.subList(0, id.size() - 1));
    String resolved = location
        .map(loc -> locations.canonical(locations.keyOf(loc)))
        .orElseGet(() -> defaultLocation(id));
    TableEntry entry = new TableEntry(
        id, resolved, UUID.randomUUID().toString(), TableEntry.State.DECLARED, properties, now());
    String key = tableKey(id);
    tableCache.invalidate(id);
    try {
      createOnce(key, CatalogFiles.write(entry));
    } catch (ObjectAlreadyExistsException e) {
      throw new TableAlreadyExistsException(id);
    }
    return entry;
  }

  /**
   * Catalogs an existing Lance dataset: {@code location} must hold at least one manifest under {@code _versions/}.
   * {@link RegisterMode#OVERWRITE} replaces an existing entry; it keeps the table uuid when the location is the same
   * (so commit event ids stay stable) and gives a new one otherwise.
   */
  public TableEntry registerTable(
      List<String> id, String location, RegisterMode mode, Map<String, String> properties) {
    validateTableId(id);
    requireNamespace(id.subList(0, id.size() - 1));
    String locationKey = locations.keyOf(location);
    String canonical = locations.canonical(locationKey);
    if (versionsAt(locationKey).isEmpty()) {
      throw new InvalidCatalogInputException(
          "Location '" + location + "' holds no Lance dataset: no manifest under " + VERSIONS_DIR + "/");
    }
    String key = tableKey(id);
    tableCache.invalidate(id);
    if (mode == RegisterMode.OVERWRITE) {
      Optional<TableEntry> existing = readTableUncached(id);
      String uuid = existing.filter(e -> e.location().equals(canonical))
          .map(TableEntry::tableUuid)
          .orElseGet(() -> UUID.randomUUID().toString());
      TableEntry entry = new TableEntry(id, canonical, uuid, TableEntry.State.REGISTERED, properties, now());
      store.put(key, CatalogFiles.write(entry));
      tableCache.invalidate(id);
      return entry;
    }
    TableEntry entry = new TableEntry(
        id, canonical, UUID.randomUUID().toString(), TableEntry.State.REGISTERED, properties, now());
    try {
      createOnce(key, CatalogFiles.write(entry));
    } catch (ObjectAlreadyExistsException e) {
      throw new TableAlreadyExistsException(id);
    }
    return entry;
  }

  /** The versions whose manifests are in the table's {@code _versions/} directory now (both naming schemes). */
  public TableVersions listVersions(TableEntry table) {
    return versionsAt(locations.keyOf(table.location()));
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

  // ---------------------------------------------------------------- internals

  private TableVersions versionsAt(String locationKey) {
    TreeSet<Long> versions = new TreeSet<>();
    for (String name : store.listDirectory(ObjectKeys.join(locationKey, VERSIONS_DIR))) {
      OptionalLong version = ManifestVersions.parse(name);
      if (version.isPresent()) {
        versions.add(version.getAsLong());
      }
    }
    return new TableVersions(versions);
  }

  private TableEntry readTable(List<String> id) {
    return readTableUncached(id).orElse(null);
  }

  private Optional<TableEntry> readTableUncached(List<String> id) {
    String key = tableKey(id);
    return store.get(key).map(data -> CatalogFiles.readTable(key, data));
  }

  /**
   * put-if-absent; when the store cannot say whether the write landed, reading the key back decides: our own bytes
   * mean it did, other bytes mean someone else won, nothing means it did not and the caller may retry.
   */
  private void createOnce(String key, byte[] data) {
    try {
      store.putIfAbsent(key, data);
    } catch (StoreOutcomeUnknownException unknown) {
      Optional<byte[]> current = store.get(key);
      if (current.isEmpty()) {
        throw unknown;
      }
      if (!Arrays.equals(current.get(), data)) {
        throw new ObjectAlreadyExistsException(key);
      }
    }
  }

  private void requireNamespace(List<String> id) {
    if (!namespaceExists(id)) {
      throw new NamespaceNotFoundException(id);
    }
  }

  private void requireEmpty(List<String> id) {
    String encoded = Identifiers.encode(id);
    boolean hasNamespaces = !store.listDirectory(ObjectKeys.join(namespacesBase, encoded)).isEmpty();
    boolean hasTables = !store.listDirectory(ObjectKeys.join(tablesBase, encoded)).isEmpty();
    if (hasNamespaces || hasTables) {
      throw new NamespaceNotEmptyException(id,
          "Namespace " + Identifiers.display(id) + " holds " + (hasTables ? "tables" : "namespaces")
              + "; Overwrite would drop them, which this coordinator never does implicitly");
    }
  }

  private static void validateTableId(List<String> id) {
    if (id.isEmpty()) {
      throw new InvalidCatalogInputException("A table identifier needs at least a table name");
    }
    Identifiers.validate(id);
  }

  private String namespaceKey(List<String> id) {
    return checkKeyLength(id, ObjectKeys.join(namespacesBase, Identifiers.encode(id) + SUFFIX));
  }

  private String tableKey(List<String> id) {
    return checkKeyLength(id, ObjectKeys.join(tablesBase, Identifiers.encode(id) + SUFFIX));
  }

  /** S3 keys are at most 1024 bytes; refuse identifiers whose catalog key would not fit. */
  private static String checkKeyLength(List<String> id, String key) {
    if (key.length() > MAX_KEY_LENGTH) {
      throw new InvalidCatalogInputException(
          "Identifier " + Identifiers.display(id) + " is too long: its catalog key exceeds " + MAX_KEY_LENGTH
              + " bytes");
    }
    return key;
  }

  private Instant now() {
    return clock.instant().truncatedTo(ChronoUnit.MILLIS);
  }
}
