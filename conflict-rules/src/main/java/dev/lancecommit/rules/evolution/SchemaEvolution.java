package dev.lancecommit.rules.evolution;

import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.SchemaContractException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.function.Function;

/**
 * The metadata-only schema changes of the namespace spec, built as Lance builds them
 * ({@code rust/lance/src/dataset/schema_evolution.rs}, {@code transaction.rs}) on the table's latest manifest:
 *
 * <ul>
 *   <li>schema metadata: an UpdateConfig whose {@code schema_metadata_updates} replaces the map (Lance's
 *       {@code replace_schema_metadata});
 *   <li>field metadata: an UpdateConfig whose {@code field_metadata_updates} merges into (or replaces) each field's
 *       map, a key without a value deleting it;
 *   <li>alter columns: a Project with the renamed / relaxed schema, {@code preserves_nullability} true (Lance's
 *       {@code alter_columns} without a cast);
 *   <li>drop columns: a Project without the dropped fields (and without a struct left with no children),
 *       {@code preserves_nullability} true (Lance's {@code drop_columns}).
 * </ul>
 *
 * Nothing here reads or writes data files, so what needs data is refused under the schema contract (400/20): a
 * cast (Lance rewrites the column under a new field id) and making a nullable column non-nullable (Lance scans the
 * column for nulls first). Each transaction reads the latest version; it is committed with rebase off, so a commit
 * landing first makes it a conflict the caller retries.
 */
public final class SchemaEvolution {
  private SchemaEvolution() {}

  /** One field's metadata change: {@code metadata} values that are empty Optionals delete their key. */
  public record FieldMetadataUpdate(String path, Map<String, Optional<String>> metadata, boolean replace) {
    public FieldMetadataUpdate {
      Objects.requireNonNull(path, "path");
      metadata = new LinkedHashMap<>(metadata);
    }
  }

  /**
   * One column change. {@code dataType} is the requested Arrow type name (the spec's {@code JsonArrowDataType.type});
   * it may only name the type the column has.
   */
  public record ColumnAlteration(String path, Optional<String> rename, Optional<Boolean> nullable,
      Optional<String> dataType) {
    public ColumnAlteration {
      Objects.requireNonNull(path, "path");
      Objects.requireNonNull(rename, "rename");
      Objects.requireNonNull(nullable, "nullable");
      Objects.requireNonNull(dataType, "dataType");
    }
  }

  /** Replaces the schema metadata with {@code metadata}. */
  public static Transaction replaceSchemaMetadata(Manifest latest, Map<String, String> metadata, String uuid) {
    Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder().setReplace(true);
    new java.util.TreeMap<>(metadata).forEach((k, v) ->
        map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(k).setValue(v)));
    return base(latest, uuid)
        .setUpdateConfig(Transaction.UpdateConfig.newBuilder().setSchemaMetadataUpdates(map))
        .build();
  }

  /**
   * Updates the metadata of the fields the paths name.
   *
   * @throws InvalidTransactionException when there is no update or two name the same field
   * @throws dev.lancecommit.rules.ColumnNotFoundException when a path names no field
   */
  public static Transaction updateFieldMetadata(Manifest latest, List<FieldMetadataUpdate> updates, String uuid) {
    if (updates.isEmpty()) {
      throw new InvalidTransactionException("Field 'updates' must name at least one field");
    }
    Transaction.UpdateConfig.Builder config = Transaction.UpdateConfig.newBuilder();
    Set<Integer> seen = new HashSet<>();
    for (FieldMetadataUpdate update : updates) {
      Field field = FieldPaths.resolve(latest.getFieldsList(), update.path());
      if (!seen.add(field.getId())) {
        throw new InvalidTransactionException("Field '" + FieldPaths.canonical(latest.getFieldsList(), field)
            + "' is named by more than one update; give one update per field");
      }
      Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder().setReplace(update.replace());
      new java.util.TreeMap<>(update.metadata()).forEach((key, value) -> {
        Transaction.UpdateMapEntry.Builder entry = Transaction.UpdateMapEntry.newBuilder().setKey(key);
        value.ifPresent(entry::setValue);
        map.addUpdateEntries(entry);
      });
      config.putFieldMetadataUpdates(field.getId(), map.build());
    }
    return base(latest, uuid).setUpdateConfig(config).build();
  }

  /**
   * Renames columns and relaxes their nullability.
   *
   * @param arrowType the Arrow type name of a field as the spec's JSON spells it, to compare a requested type with
   * @throws SchemaContractException for a type change or a nullable column made non-nullable (400/20)
   * @throws InvalidTransactionException for no alteration, a rename onto a sibling's name or an empty name
   */
  public static Transaction alterColumns(Manifest latest, List<ColumnAlteration> alterations,
      Function<Field, String> arrowType, String uuid) {
    if (alterations.isEmpty()) {
      throw new InvalidTransactionException("Field 'alterations' must name at least one column");
    }
    List<Field> before = latest.getFieldsList();
    Map<Integer, Field.Builder> changed = new LinkedHashMap<>();
    for (ColumnAlteration alteration : alterations) {
      Field source = FieldPaths.resolve(before, alteration.path());
      String path = FieldPaths.canonical(before, source);
      Field.Builder target = changed.computeIfAbsent(source.getId(), id -> source.toBuilder());
      if (alteration.dataType().isPresent() && !alteration.dataType().get().equals(arrowType.apply(source))) {
        throw new SchemaContractException(path, "Changing the type of column '" + path + "' from "
            + arrowType.apply(source) + " to " + alteration.dataType().get() + " rewrites its data under a new field"
            + " id; the coordinator commits no data of its own. Add a column of the new type and backfill it.");
      }
      if (alteration.nullable().isPresent()) {
        boolean nullable = alteration.nullable().get();
        if (source.getNullable() && !nullable) {
          throw new SchemaContractException(path, "Making column '" + path + "' non-nullable needs its data scanned"
              + " for nulls, which the coordinator does not read; write the column non-nullable with a Merge instead");
        }
        target.setNullable(nullable);
      }
      if (alteration.rename().isPresent()) {
        String name = alteration.rename().get();
        if (name.isEmpty()) {
          throw new InvalidTransactionException("Column '" + path + "' cannot be renamed to an empty name");
        }
        target.setName(name);
      }
    }
    List<Field> after = new ArrayList<>(before.size());
    for (Field field : before) {
      Field.Builder b = changed.get(field.getId());
      after.add(b == null ? field : b.build());
    }
    requireUniqueSiblingNames(after);
    return base(latest, uuid)
        .setProject(Transaction.Project.newBuilder().addAllSchema(after).setPreservesNullability(true))
        .build();
  }

  /**
   * Drops columns (and their children; a struct left without children goes too).
   *
   * @throws InvalidTransactionException for no column, a list's item, or dropping every column
   */
  public static Transaction dropColumns(Manifest latest, List<String> paths, String uuid) {
    if (paths.isEmpty()) {
      throw new InvalidTransactionException("Field 'columns' must name at least one column");
    }
    List<Field> before = latest.getFieldsList();
    Map<Integer, Field> byId = new LinkedHashMap<>();
    before.forEach(f -> byId.putIfAbsent(f.getId(), f));
    Set<Integer> dropped = new HashSet<>();
    for (String path : paths) {
      Field field = FieldPaths.resolve(before, path);
      Field parent = field.getParentId() < 0 ? null : byId.get(field.getParentId());
      if (parent != null && !parent.getLogicalType().equals("struct")) {
        throw new InvalidTransactionException("Column '" + FieldPaths.canonical(before, field) + "' is the item of "
            + parent.getLogicalType() + " column '" + FieldPaths.canonical(before, parent)
            + "' and cannot be dropped on its own; drop the list column");
      }
      dropped.add(field.getId());
    }
    // Children of dropped fields go with them; then structs left with no child, up to the top.
    boolean more = true;
    while (more) {
      more = false;
      for (Field field : before) {
        if (!dropped.contains(field.getId()) && dropped.contains(field.getParentId())) {
          dropped.add(field.getId());
          more = true;
        }
      }
      for (Field field : before) {
        if (!dropped.contains(field.getId()) && field.getLogicalType().equals("struct") && hadChildren(before, field)
            && before.stream().noneMatch(c -> c.getParentId() == field.getId() && !dropped.contains(c.getId()))) {
          dropped.add(field.getId());
          more = true;
        }
      }
    }
    List<Field> after = before.stream().filter(f -> !dropped.contains(f.getId())).toList();
    if (after.stream().noneMatch(f -> f.getParentId() < 0)) {
      throw new InvalidTransactionException("Cannot drop all columns from a table");
    }
    return base(latest, uuid)
        .setProject(Transaction.Project.newBuilder().addAllSchema(after).setPreservesNullability(true))
        .build();
  }

  private static boolean hadChildren(List<Field> schema, Field field) {
    return schema.stream().anyMatch(c -> c.getParentId() == field.getId());
  }

  private static void requireUniqueSiblingNames(List<Field> schema) {
    Set<String> seen = new HashSet<>();
    for (Field field : schema) {
      if (!seen.add(field.getParentId() + "/" + field.getName())) {
        throw new InvalidTransactionException("Two columns would be named '" + FieldPaths.canonical(schema, field)
            + "'; rename one of them to another name");
      }
    }
  }

  private static Transaction.Builder base(Manifest latest, String uuid) {
    return Transaction.newBuilder().setUuid(uuid).setReadVersion(latest.getVersion());
  }
}
