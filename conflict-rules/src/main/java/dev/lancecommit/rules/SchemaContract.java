package dev.lancecommit.rules;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.TreeSet;

/**
 * The table's schema contract, enforced at the commit point: an operation that replaces the schema of an existing
 * table (Merge, Project) may add and drop fields and relax nullability, but a field that keeps its id keeps its type.
 *
 * <p>On a legacy table each {@code logical_type} names exactly one Arrow type, so "keeps its type" means the same
 * {@code logical_type} string: a changed type would make existing data files unreadable under the new schema.
 *
 * <p>On a table that carries the semantic-types flag ({@link FormatFeatures}, {@link SemanticTypes}) "keeps its
 * type" means the same semantic type: {@code large_string} and {@code string} are one type, {@code decimal:10:2}
 * and {@code decimal:12:2} are not. What such a table records is checked on the built manifest
 * ({@link #checkBuilt}): a commit writes only canonical type names, only output encodings its types admit, and keeps
 * every field's Arrow extension name and metadata. The commit that turns the flag on (a Project carrying
 * {@link SemanticTypes#ENABLE_PROPERTY}) must be the metadata-only upgrade: same fields, canonical names, and the
 * output encodings that keep every read type as it was. Every refusal names the field path (HTTP 400, code 20).
 */
public final class SchemaContract {
  private SchemaContract() {}

  /** {@link #check(TableState, Transaction, FormatFeatures)} for a coordinator without optional features. */
  public static void check(TableState current, Transaction txn) {
    check(current, txn, FormatFeatures.standard());
  }

  /** Checks {@code txn}'s new schema against the current one; no-op for operations that keep the schema. */
  public static void check(TableState current, Transaction txn, FormatFeatures features) {
    boolean enabling = SemanticTypes.enables(txn);
    if (enabling) {
      checkEnablement(current, txn, features);
    }
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
    boolean semantic = enabling || features.isSemanticTypesTable(current.manifest());
    List<Field> before = current.manifest().getFieldsList();
    Map<Integer, Field> beforeById = byId(before);
    String operation = OperationKind.of(txn).lanceName();
    for (Field field : next) {
      Field old = beforeById.get(field.getId());
      if (old == null) {
        continue; // a new field
      }
      boolean sameType = semantic
          ? SemanticTypes.sameSemanticType(old.getLogicalType(), field.getLogicalType())
          : old.getLogicalType().equals(field.getLogicalType());
      if (!sameType) {
        String path = path(before, old);
        String kind = semantic ? "semantic type" : "type";
        throw new SchemaContractException(path, operation + " changes the " + kind + " of field '" + path + "' (id "
            + field.getId() + ") from " + old.getLogicalType() + " to " + field.getLogicalType()
            + "; existing data files hold " + old.getLogicalType() + ". Add a new field instead.");
      }
      if (old.getParentId() != field.getParentId()) {
        String path = path(before, old);
        throw new SchemaContractException(path, operation + " moves field '" + path
            + "' (id " + field.getId() + ") to another parent");
      }
      if (old.getNullable() && !field.getNullable()) {
        String path = path(before, old);
        throw new SchemaContractException(path, operation + " makes field '" + path
            + "' (id " + field.getId() + ") non-nullable; existing rows may hold nulls");
      }
    }
    if (enabling) {
      checkUpgrade(before, next);
    }
  }

  /**
   * Checks what a version of a semantic-types table records, on the manifest the builder produced: fields this
   * commit adds or retypes have canonical names and valid types, every output encoding this commit sets is one its
   * type admits, and fields that stay keep their Arrow extension. A no-op for legacy tables.
   *
   * @param previous the version the commit applies to (null when it creates the table)
   */
  public static void checkBuilt(TableState previous, Manifest next, Transaction txn, FormatFeatures features) {
    if (!features.isSemanticTypesTable(next)) {
      checkLanceTypes(previous, next);
      return;
    }
    boolean all = previous == null || SemanticTypes.enables(txn) || txn.hasOverwrite();
    Map<Integer, Field> beforeById = previous == null ? Map.of() : byId(previous.manifest().getFieldsList());
    List<Field> fields = next.getFieldsList();
    for (Field field : fields) {
      Field old = all ? null : beforeById.get(field.getId());
      Field kept = txn.hasOverwrite() ? null : beforeById.get(field.getId());
      String problem = recordedProblem(field, old, kept);
      if (problem != null) {
        String path = path(fields, field); // only on the way out: it walks the schema
        throw new SchemaContractException(path, "Field '" + path + "' (id " + field.getId() + ")" + problem);
      }
    }
  }

  /**
   * A legacy table: every field this commit adds or retypes has a {@code logical_type} stock Lance parses (a version
   * with any other makes Lance refuse to open it, or panic).
   */
  private static void checkLanceTypes(TableState previous, Manifest next) {
    Map<Integer, Field> beforeById = previous == null ? Map.of() : byId(previous.manifest().getFieldsList());
    List<Field> fields = next.getFieldsList();
    for (Field field : fields) {
      Field old = beforeById.get(field.getId());
      if (old != null && old.getLogicalType().equals(field.getLogicalType())) {
        continue;
      }
      String problem = LogicalTypes.problem(field.getLogicalType());
      if (problem != null) {
        String path = path(fields, field);
        throw new SchemaContractException(path, "Field '" + path + "' (id " + field.getId() + ") has logical type '"
            + field.getLogicalType() + "', which stock Lance cannot read: " + problem);
      }
    }
  }

  /**
   * What is wrong with how a semantic-types table records {@code field}, worded to follow "Field 'path' (id n)", or
   * null.
   *
   * @param old the field's previous version when this commit must not change its type unchecked, else null
   * @param kept the field's previous version when its Arrow extension must be kept, else null
   */
  private static String recordedProblem(Field field, Field old, Field kept) {
    if (old == null || !old.getLogicalType().equals(field.getLogicalType())) {
      SemanticTypes.Resolved resolved = SemanticTypes.resolve(field.getLogicalType());
      if (resolved.legacyAlias()) {
        String encoding = resolved.impliedEncoding() == null ? ""
            : " with " + SemanticTypes.OUTPUT_ENCODING_KEY + "=" + resolved.impliedEncoding();
        return " is written as " + field.getLogicalType() + ", a legacy alias; a table with the semantic-types flag"
            + " records canonical names: " + resolved.canonical() + encoding;
      }
      String problem = SemanticTypes.typeProblem(resolved.canonical());
      if (problem != null) {
        return ": " + problem;
      }
    }
    String encoding = SemanticTypes.metadata(field, SemanticTypes.OUTPUT_ENCODING_KEY);
    String oldEncoding = old == null ? null : SemanticTypes.metadata(old, SemanticTypes.OUTPUT_ENCODING_KEY);
    if (encoding != null && !encoding.equals(oldEncoding)) {
      String problem = SemanticTypes.outputEncodingProblem(
          SemanticTypes.resolve(field.getLogicalType()).canonical(), encoding);
      if (problem != null) {
        return ": " + problem;
      }
    }
    return kept == null ? null : extensionChange(kept, field);
  }

  private static void checkEnablement(TableState current, Transaction txn, FormatFeatures features) {
    String value = txn.getTransactionPropertiesMap().get(SemanticTypes.ENABLE_PROPERTY);
    if (!SemanticTypes.ENABLE_VALUE.equals(value)) {
      throw new InvalidTransactionException("Transaction property " + SemanticTypes.ENABLE_PROPERTY + " must be '"
          + SemanticTypes.ENABLE_VALUE + "', got '" + value + "'");
    }
    if (!features.supportsSemanticTypes()) {
      throw SemanticTypes.notConfigured();
    }
    if (!txn.hasProject() && !txn.hasOverwrite()) {
      throw new InvalidTransactionException("The semantic-type contract is turned on by a Project (the upgrade"
          + " commit) or an Overwrite (a new table), not by " + OperationKind.of(txn).lanceName());
    }
    if (current != null && features.isSemanticTypesTable(current.manifest())) {
      throw new InvalidTransactionException("The table already follows the semantic-type contract (version "
          + current.version() + " carries the flag)");
    }
  }

  /** The upgrade keeps every field and every read type; only names become canonical. */
  private static void checkUpgrade(List<Field> before, List<Field> next) {
    Set<Integer> beforeIds = new TreeSet<>(byId(before).keySet());
    Set<Integer> nextIds = new TreeSet<>(byId(next).keySet());
    if (!beforeIds.equals(nextIds)) {
      throw new InvalidTransactionException("The semantic-types upgrade is a metadata-only commit: it must keep"
          + " exactly the fields " + beforeIds + ", got " + nextIds);
    }
    Map<Integer, Field> beforeById = byId(before);
    for (Field field : next) {
      Field old = beforeById.get(field.getId());
      String was = SemanticTypes.legacyEncoding(old);
      String now = SemanticTypes.effectiveEncoding(field);
      if (!Objects.equals(was, now)) {
        String path = path(next, field);
        throw new SchemaContractException(path, "The upgrade changes what a read of field '" + path + "' returns"
            + " (from " + old.getLogicalType() + " to output encoding " + now + "); set "
            + SemanticTypes.OUTPUT_ENCODING_KEY + "=" + was);
      }
    }
  }

  private static String extensionChange(Field old, Field field) {
    String oldName = SemanticTypes.extensionName(old);
    String newName = SemanticTypes.extensionName(field);
    String oldMetadata = SemanticTypes.metadata(old, SemanticTypes.EXTENSION_METADATA_KEY);
    String newMetadata = SemanticTypes.metadata(field, SemanticTypes.EXTENSION_METADATA_KEY);
    if (Objects.equals(oldName, newName) && Objects.equals(oldMetadata, newMetadata)) {
      return null;
    }
    return " changes its Arrow extension (" + oldName + " -> " + newName + "); extension names and metadata are kept"
        + " through every schema change";
  }

  private static Map<Integer, Field> byId(List<Field> fields) {
    Map<Integer, Field> byId = new HashMap<>();
    fields.forEach(f -> byId.putIfAbsent(f.getId(), f));
    return byId;
  }

  /** The dotted path of a field, from its top-level ancestor down. */
  static String path(List<Field> schema, Field field) {
    Map<Integer, Field> byId = byId(schema);
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
