package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.time.Clock;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.BooleanSupplier;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The catalog's entries in the warehouse: one revision log per namespace and per table under
 * {@code {warehouse}/_catalog/tree/} (layout {@link CatalogLayout}, documents {@link CatalogFiles}), read and changed
 * through {@link RevisionLog}. The namespace and table catalogs and the location registry sit on top of it; it knows
 * nothing of their rules.
 */
final class CatalogStore {
  static final String CATALOG_DIR = "_catalog";
  private static final Logger LOG = LoggerFactory.getLogger(CatalogStore.class);

  private final ObjectStore store;
  private final String warehouseKey;
  private final String catalogBase;
  private final CatalogLayout layout;
  private final RevisionLog<NamespaceRecord> namespaces;
  private final RevisionLog<TableRecord> tables;

  CatalogStore(StorageLocation warehouse, Clock clock) {
    this.store = warehouse.store();
    this.warehouseKey = warehouse.rootKey();
    this.catalogBase = warehouse.key(CATALOG_DIR);
    this.layout = new CatalogLayout(catalogBase);
    this.namespaces = new RevisionLog<>(store, new RevisionLog.Codec<>() {
      @Override
      public byte[] encode(NamespaceRecord value, long revision) {
        return CatalogFiles.write(value, revision);
      }

      @Override
      public NamespaceRecord decode(String key, byte[] data) {
        return CatalogFiles.readNamespace(key, data);
      }
    }, (record, now) -> record.stamped(now, UUID.randomUUID().toString()), NamespaceRecord::active, clock);
    this.tables = new RevisionLog<>(store, new RevisionLog.Codec<>() {
      @Override
      public byte[] encode(TableRecord value, long revision) {
        return CatalogFiles.write(value, revision);
      }

      @Override
      public TableRecord decode(String key, byte[] data) {
        return CatalogFiles.readTable(key, data);
      }
    }, (record, now) -> record.stamped(now, UUID.randomUUID().toString()), TableRecord::isLive, clock);
  }

  ObjectStore objectStore() {
    return store;
  }

  /** The warehouse root's key in the store ({@code ""} for the store root). */
  String warehouseKey() {
    return warehouseKey;
  }

  /** {@code {warehouse}/_catalog}. */
  String catalogBase() {
    return catalogBase;
  }

  Instant now() {
    return tables.now();
  }

  // ---------------------------------------------------------------- namespaces

  Optional<RevisionLog.Revision<NamespaceRecord>> namespace(List<String> id) {
    return namespaces.latest(layout.namespaceDir(id));
  }

  /** Whether the namespace exists now; the root always does. */
  boolean namespaceExists(List<String> id) {
    return id.isEmpty() || namespace(id).map(r -> r.value().active()).orElse(false);
  }

  void requireNamespace(List<String> id) {
    if (!namespaceExists(id)) {
      throw new NamespaceNotFoundException(id);
    }
  }

  RevisionLog.Mutation<NamespaceRecord> mutateNamespace(List<String> id,
      Function<Optional<NamespaceRecord>, NamespaceRecord> change) {
    return namespaces.mutate(layout.namespaceDir(id), Identifiers.display(id), change);
  }

  // ---------------------------------------------------------------- tables

  Optional<RevisionLog.Revision<TableRecord>> table(List<String> id) {
    return tables.latest(layout.tableDir(id));
  }

  /** One revision of a table's entry; it must exist. */
  TableRecord tableRevision(List<String> id, long revision) {
    return tables.read(layout.tableDir(id), revision).value();
  }

  RevisionLog.Mutation<TableRecord> mutateTable(List<String> id,
      Function<Optional<TableRecord>, TableRecord> change, RevisionLog.WriteGuard<TableRecord> guard) {
    return tables.mutate(layout.tableDir(id), Identifiers.display(id), change, guard);
  }

  /**
   * Writes {@code record} (stamped) as revision {@code revision} of a table's entry, once: no re-read, no retry.
   *
   * @throws ObjectAlreadyExistsException that revision exists already
   */
  TableRecord appendTable(List<String> id, long revision, TableRecord record) {
    return tables.appendStamped(layout.tableDir(id), revision, record);
  }

  /**
   * Makes sure revision {@code revision} of a table's entry is not the one a writer in flight intends: writes it
   * first, as the newest revision again ({@code newest}, same revision id, so nothing about the table changes) or, for
   * an entry that has no revision yet, as a dropped placeholder. False when the revision exists already.
   */
  boolean fenceTable(List<String> id, long revision, Optional<TableRecord> newest, String location) {
    TableRecord fence = newest.orElseGet(() -> TableRecord.create(id, location, UUID.randomUUID().toString(),
        TableStatus.DROPPED, Map.of(), now()).stamped(now(), UUID.randomUUID().toString()));
    try {
      tables.append(layout.tableDir(id), revision, fence);
      return true;
    } catch (ObjectAlreadyExistsException exists) {
      return false;
    }
  }

  // ---------------------------------------------------------------- listings

  /** Listings skip an entry whose newest revision cannot be parsed, so one broken file does not hide the rest. */
  static boolean readable(BooleanSupplier check) {
    try {
      return check.getAsBoolean();
    } catch (CorruptCatalogEntryException e) {
      LOG.warn("Listing skips a catalog entry: {}", e.getMessage());
      return false;
    }
  }

  /** The newest revision number of every entry of {@code kind} found under {@code prefix}, in identifier order. */
  SortedMap<List<String>, Long> latestRevisions(String prefix, CatalogLayout.Kind kind) {
    SortedMap<List<String>, Long> newest = new TreeMap<>(Identifiers.ORDER);
    for (ObjectInfo info : store.list(prefix)) {
      layout.locate(info.key()).filter(l -> l.kind() == kind)
          .ifPresent(l -> newest.merge(l.id(), l.revision(), Math::max));
    }
    return newest;
  }

  /** Newest revision of every namespace directly in {@code parent}. */
  SortedMap<List<String>, Long> namespacesIn(List<String> parent) {
    return latestRevisions(layout.namespacesIn(parent), CatalogLayout.Kind.NAMESPACE);
  }

  /** Newest revision of every table directly in {@code namespace}. */
  SortedMap<List<String>, Long> tablesIn(List<String> namespace) {
    return latestRevisions(layout.tablesIn(namespace), CatalogLayout.Kind.TABLE);
  }

  /** Newest revision of every table in the warehouse. */
  SortedMap<List<String>, Long> allTables() {
    return latestRevisions(layout.treeBase(), CatalogLayout.Kind.TABLE);
  }

  NamespaceRecord namespaceRevision(List<String> id, long revision) {
    return namespaces.read(layout.namespaceDir(id), revision).value();
  }

  /** The live namespaces and tables directly in a namespace. */
  record Children(List<List<String>> namespaces, List<List<String>> tables) {
    boolean isEmpty() {
      return namespaces.isEmpty() && tables.isEmpty();
    }

    String describe() {
      return !tables.isEmpty() ? "table " + Identifiers.display(tables.get(0))
          : "namespace " + Identifiers.display(namespaces.get(0));
    }
  }

  Children liveChildren(List<String> id) {
    List<List<String>> childNamespaces = new ArrayList<>();
    namespacesIn(id).forEach((child, revision) -> {
      if (namespaceRevision(child, revision).active()) {
        childNamespaces.add(child);
      }
    });
    List<List<String>> childTables = new ArrayList<>();
    tablesIn(id).forEach((child, revision) -> {
      if (tableRevision(child, revision).isLive()) {
        childTables.add(child);
      }
    });
    return new Children(childNamespaces, childTables);
  }
}
