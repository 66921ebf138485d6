package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.refs.RefStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableRef;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Every live table of the catalog ({@link Catalog#liveTables()}; unreadable entries are skipped there) and, when the
 * tables' stores are given, every Lance branch of each (from its {@code _refs/branches/}): a branch's versions are
 * numbered apart and published as a stream of their own.
 */
public final class CatalogTableSource implements TableSource {
  private static final Logger LOG = LoggerFactory.getLogger(CatalogTableSource.class);

  private final Catalog catalog;
  private final Function<String, StorageLocation> stores;

  /** The catalog's tables, main branches only. */
  public CatalogTableSource(Catalog catalog) {
    this(catalog, null);
  }

  /** The catalog's tables and their branches, read through {@code stores} (null: main branches only). */
  public CatalogTableSource(Catalog catalog, Function<String, StorageLocation> stores) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
    this.stores = stores;
  }

  @Override
  public List<TableRef> tables() {
    List<TableRef> tables = new ArrayList<>();
    for (TableEntry entry : catalog.liveTables()) {
      TableRef table = entry.toRef();
      tables.add(table);
      if (stores == null) {
        continue;
      }
      try {
        for (String branch : new RefStore(stores.apply(table.location()), table.joinedId()).branches().keySet()) {
          tables.add(table.onBranch(branch));
        }
      } catch (RuntimeException e) {
        LOG.warn("Could not list the branches of table {}; their versions are reconciled next time: {}",
            table.joinedId(), e.toString());
      }
    }
    return tables;
  }
}
