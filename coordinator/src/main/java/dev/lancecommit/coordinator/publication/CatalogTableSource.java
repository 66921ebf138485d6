package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import java.util.List;
import java.util.Objects;

/** Every live table of the catalog ({@link Catalog#liveTables()}; unreadable entries are skipped there). */
public final class CatalogTableSource implements TableSource {
  private final Catalog catalog;

  public CatalogTableSource(Catalog catalog) {
    this.catalog = Objects.requireNonNull(catalog, "catalog");
  }

  @Override
  public List<TableRef> tables() {
    return catalog.liveTables().stream().map(TableEntry::toRef).toList();
  }
}
