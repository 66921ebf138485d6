package dev.lancecommit.coordinator.namespace;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Predicate;

/**
 * The namespaces of the catalog, as revisions of their entries in the {@link CatalogStore}. The root namespace always
 * exists and is never stored. Creating an entry inside a namespace and dropping that namespace both re-check the
 * other side after writing and undo their own write if they raced, so a dropped namespace never keeps a live child.
 * A cascading drop deregisters the tables below (through the {@link TableCatalog}), keeping their data.
 */
final class NamespaceCatalog {
  private final CatalogStore entries;
  private final TableCatalog tables;

  NamespaceCatalog(CatalogStore entries, TableCatalog tables) {
    this.entries = entries;
    this.tables = tables;
  }

  Optional<NamespaceEntry> loadNamespace(List<String> id) {
    Identifiers.validate(id);
    if (id.isEmpty()) {
      return Optional.of(NamespaceEntry.root());
    }
    return entries.namespace(id).flatMap(r -> r.value().live());
  }

  NamespaceEntry createNamespace(List<String> id, CreateMode mode, Map<String, String> properties) {
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
    List<String> parent = List.copyOf(id.subList(0, id.size() - 1));
    entries.requireNamespace(parent);
    RevisionLog.Mutation<NamespaceRecord> m = entries.mutateNamespace(id, current -> {
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
      return NamespaceRecord.create(id, properties, entries.now());
    });
    if (m.created() && !entries.namespaceExists(parent)) {
      undoNamespace(id, m.after());
      throw new NamespaceNotFoundException(parent);
    }
    return m.after().live().orElseThrow();
  }

  Page<String> listNamespaces(List<String> parent, Optional<String> after, int limit,
      Predicate<List<String>> visible) {
    Identifiers.validate(parent);
    entries.requireNamespace(parent);
    Page.checkLimit(limit);
    List<String> names = new ArrayList<>();
    for (Map.Entry<List<String>, Long> candidate : entries.namespacesIn(parent).entrySet()) {
      List<String> id = candidate.getKey();
      String name = id.get(id.size() - 1);
      if (after.isPresent() && name.compareTo(after.get()) <= 0 || !visible.test(id)) {
        continue;
      }
      if (CatalogStore.readable(() -> entries.namespaceRevision(id, candidate.getValue()).active())) {
        names.add(name);
        if (names.size() > limit) {
          break;
        }
      }
    }
    return Page.of(names, limit);
  }

  Optional<NamespaceEntry> dropNamespace(List<String> id, DropMode mode, DropBehavior behavior) {
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
    RevisionLog.Mutation<NamespaceRecord> m;
    try {
      m = entries.mutateNamespace(id, current -> {
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
    CatalogStore.Children late = entries.liveChildren(id);
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

  private void requireEmpty(List<String> id, String hint) {
    CatalogStore.Children children = entries.liveChildren(id);
    if (!children.isEmpty()) {
      throw new NamespaceNotEmptyException(id, "Namespace " + Identifiers.display(id) + " holds "
          + children.describe() + (children.namespaces().size() + children.tables().size() > 1 ? " and more" : "")
          + "; " + hint);
    }
  }

  /** Deregisters every table below {@code id} and drops every namespace below it (not {@code id} itself). */
  private void cascade(List<String> id) {
    CatalogStore.Children children = entries.liveChildren(id);
    for (List<String> table : children.tables()) {
      try {
        tables.deregisterTable(table);
      } catch (TableNotFoundException gone) {
        // removed by someone else meanwhile
      }
    }
    for (List<String> child : children.namespaces()) {
      dropNamespace(child, DropMode.SKIP, DropBehavior.CASCADE);
    }
  }

  private void undoNamespace(List<String> id, NamespaceRecord ours) {
    entries.mutateNamespace(id, current -> current.filter(c -> c.revisionId().equals(ours.revisionId()))
        .map(NamespaceRecord::dropped)
        .orElse(current.orElse(null)));
  }

  private void restoreNamespace(List<String> id, NamespaceRecord ourTombstone) {
    entries.mutateNamespace(id, current -> current.filter(c -> c.revisionId().equals(ourTombstone.revisionId()))
        .map(NamespaceRecord::restored)
        .orElse(current.orElse(null)));
  }
}
