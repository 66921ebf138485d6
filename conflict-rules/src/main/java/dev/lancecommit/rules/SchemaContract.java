package dev.lancecommit.rules;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Transaction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The table's schema contract, enforced at the commit point: an operation that replaces the schema of an existing
 * table (Merge, Project) may add and drop fields and relax nullability, but a field that keeps its id keeps its type.
 *
 * <p>On a table without the semantic-types feature flag (every table this build accepts: the flag has no assigned
 * bit yet, so a table carrying it is refused as unknown) each {@code logical_type} names exactly one Arrow type, so
 * "keeps its type" means the same {@code logical_type} string. A changed type would make existing data files
 * unreadable under the new schema, so it is refused with the path of the field, not corrupted.
 */
public final class SchemaContract {
  private SchemaContract() {}

  /** Checks {@code txn}'s new schema against the current one; no-op for operations that keep the schema. */
  public static void check(TableState current, Transaction txn) {
    if (current == null) {
      return;
    }
    List<Field> next = switch (txn.getOperationCase()) {
      case MERGE -> txn.getMerge().getSchemaList();
      case PROJECT -> txn.getProject().getSchemaList();
      default -> null;
    };
    if (next == null) {
      return;
    }
    List<Field> before = current.manifest().getFieldsList();
    Map<Integer, Field> beforeById = new HashMap<>();
    before.forEach(f -> beforeById.put(f.getId(), f));
    for (Field field : next) {
      Field old = beforeById.get(field.getId());
      if (old == null) {
        continue; // a new field
      }
      if (!old.getLogicalType().equals(field.getLogicalType())) {
        String path = path(before, old);
        throw new SchemaContractException(path, OperationKind.of(txn).lanceName() + " changes the type of field '"
            + path + "' (id " + field.getId() + ") from " + old.getLogicalType() + " to " + field.getLogicalType()
            + "; existing data files hold " + old.getLogicalType() + ". Add a new field instead.");
      }
      if (old.getParentId() != field.getParentId()) {
        String path = path(before, old);
        throw new SchemaContractException(path, OperationKind.of(txn).lanceName() + " moves field '" + path
            + "' (id " + field.getId() + ") to another parent");
      }
      if (old.getNullable() && !field.getNullable()) {
        String path = path(before, old);
        throw new SchemaContractException(path, OperationKind.of(txn).lanceName() + " makes field '" + path
            + "' (id " + field.getId() + ") non-nullable; existing rows may hold nulls");
      }
    }
  }

  /** The dotted path of a field, from its top-level ancestor down. */
  static String path(List<Field> schema, Field field) {
    Map<Integer, Field> byId = new HashMap<>();
    schema.forEach(f -> byId.put(f.getId(), f));
    StringBuilder path = new StringBuilder(field.getName());
    Field parent = byId.get(field.getParentId());
    int depth = 0;
    while (parent != null && depth++ < schema.size()) {
      path.insert(0, parent.getName() + ".");
      parent = byId.get(parent.getParentId());
    }
    return path.toString();
  }
}
