package dev.lancecommit.rules;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Checks a transaction before it goes anywhere near the commit path: that it is well formed, may apply to the
 * table at its latest version, and names only files inside the table. Checks that need the conflict rules (what
 * changed since read_version) are not made here.
 */
public final class TransactionValidator {
  private static final int TOMBSTONE = -2;

  private TransactionValidator() {}

  /**
   * @param txn the decoded transaction
   * @param latest the table's latest version, or null when the table has no version yet
   * @throws InvalidTransactionException with a message naming the problem
   * @throws UnsupportedFeatureException when the latest manifest carries writer features this build lacks
   */
  public static void validate(Transaction txn, TableState latest) {
    validate(txn, latest, FormatFeatures.standard());
  }

  /** {@link #validate(Transaction, TableState)} for a coordinator that also understands {@code features}. */
  public static void validate(Transaction txn, TableState latest, FormatFeatures features) {
    Objects.requireNonNull(txn, "txn");
    Objects.requireNonNull(features, "features");
    if (latest != null) {
      FeatureFlags.ensureWritable(latest.manifest(), features);
    }
    if (!TransactionFiles.isValidUuid(txn.getUuid())) {
      throw new InvalidTransactionException(
          "Transaction uuid '" + txn.getUuid() + "' is not a hyphenated UUID string");
    }
    OperationKind kind = OperationKind.of(txn);
    if (kind == OperationKind.USER_OPERATION) {
      throw new InvalidTransactionException("Operation UserOperation is a draft format that Lance itself refuses");
    }
    checkReadVersion(txn, kind, latest);
    new Check(txn, kind, latest).run();
    SchemaContract.check(latest, txn, features);
  }

  private static void checkReadVersion(Transaction txn, OperationKind kind, TableState latest) {
    long readVersion = txn.getReadVersion();
    if (latest == null) {
      if (kind != OperationKind.OVERWRITE && kind != OperationKind.CLONE) {
        throw new InvalidTransactionException("The table has no version yet: only Overwrite or Clone can create it, "
            + "not " + kind.lanceName());
      }
      if (kind == OperationKind.OVERWRITE && readVersion != 0) {
        throw new InvalidTransactionException("read_version " + Long.toUnsignedString(readVersion)
            + " is ahead of the latest version 0 (the table has no version yet)");
      }
      return;
    }
    if (kind == OperationKind.CLONE) {
      throw new InvalidTransactionException(
          "Clone creates a table, but this table already exists at version " + latest.version());
    }
    if (Long.compareUnsigned(readVersion, latest.version()) > 0) {
      throw new InvalidTransactionException("read_version " + Long.toUnsignedString(readVersion)
          + " is ahead of the latest version " + latest.version());
    }
    if (readVersion == 0 && kind != OperationKind.OVERWRITE) {
      throw new InvalidTransactionException("read_version 0 is only valid for an Overwrite or a Clone creating the "
          + "table, not for " + kind.lanceName() + " (latest version is " + latest.version() + ")");
    }
  }

  /** One validation pass over a transaction. */
  private static final class Check {
    private final Transaction txn;
    private final OperationKind kind;
    private final TableState latest;
    private final FragmentsById existing;
    private final Set<Integer> baseIds = new HashSet<>();
    private final boolean stableRowIds;

    Check(Transaction txn, OperationKind kind, TableState latest) {
      this.txn = txn;
      this.kind = kind;
      this.latest = latest;
      this.existing = latest == null ? FragmentsById.none() : FragmentsById.of(latest);
      if (latest != null) {
        latest.manifest().getBasePathsList().forEach(b -> baseIds.add(b.getId()));
      }
      this.stableRowIds = latest != null && FeatureFlags.usesStableRowIds(latest.manifest());
    }

    void run() {
      switch (kind) {
        case APPEND -> {
          List<DataFragment> added = txn.getAppend().getFragmentsList();
          checkNewFragments(added, "Append");
          checkFiles(added, currentSchema(), Set.of(), FragmentsById.none()); // see checkUpdate
          checkExplicitIds(added, true);
        }
        case DELETE -> {
          Transaction.Delete delete = txn.getDelete();
          checkFiles(delete.getUpdatedFragmentsList(), currentSchema(), Set.of(), existing);
          checkUniqueIds(delete.getUpdatedFragmentsList(), "Delete.updated_fragments");
          checkKeepsDataFiles(delete.getUpdatedFragmentsList(), "Delete");
        }
        case OVERWRITE -> checkOverwrite(txn.getOverwrite());
        case CREATE_INDEX -> {
          Transaction.CreateIndex createIndex = txn.getCreateIndex();
          createIndex.getNewIndicesList().forEach(this::checkIndex);
          for (IndexMetadata removed : createIndex.getRemovedIndicesList()) {
            requireUuid(removed.hasUuid() ? removed.getUuid() : null, "CreateIndex.removed_indices uuid");
          }
        }
        case REWRITE -> checkRewrite(txn.getRewrite());
        case MERGE -> checkMerge(txn.getMerge());
        case RESTORE -> {
          long version = txn.getRestore().getVersion();
          if (version < 1 || version > latest.version()) {
            throw new InvalidTransactionException("Cannot restore version " + Long.toUnsignedString(version)
                + ": the table's versions are 1.." + latest.version());
          }
        }
        case UPDATE -> checkUpdate(txn.getUpdate());
        case PROJECT -> {
          requireSchema(txn.getProject().getSchemaList(), "Project");
        }
        case UPDATE_CONFIG -> UpdateConfigOperation.normalized(txn.getUpdateConfig());
        case DATA_REPLACEMENT -> checkDataReplacement(txn.getDataReplacement());
        case CLONE -> {
          if (txn.getClone().getRefPath().isEmpty()) {
            throw new InvalidTransactionException("Clone carries no ref_path (the source table root)");
          }
        }
        case UPDATE_BASES -> {
          for (BasePath base : txn.getUpdateBases().getNewBasesList()) {
            if (base.getPath().isEmpty()) {
              throw new InvalidTransactionException("UpdateBases carries a base path with an empty path");
            }
          }
        }
        default -> {
          // ReserveFragments carries a count only; UpdateMemWalState and DataOverlay are left to the builder.
        }
      }
    }

    private void checkOverwrite(Transaction.Overwrite overwrite) {
      if (latest != null && overwrite.getInitialBasesCount() > 0) {
        throw new InvalidTransactionException(
            "Overwrite of an existing table cannot register new bases (initial_bases is only for creation)");
      }
      if (latest == null) {
        for (BasePath base : overwrite.getInitialBasesList()) {
          if (!baseIds.add(base.getId())) {
            throw new InvalidTransactionException("Duplicate base path ID " + Integer.toUnsignedString(base.getId())
                + " detected. Base path IDs must be unique.");
          }
        }
      }
      requireSchema(overwrite.getSchemaList(), "Overwrite");
      checkNewFragments(overwrite.getFragmentsList(), "Overwrite");
      // An Overwrite replaces every fragment: all its files are new.
      checkFiles(overwrite.getFragmentsList(), overwrite.getSchemaList(), Set.of(), FragmentsById.none());
      checkExplicitIds(overwrite.getFragmentsList(), false);
    }

    private void checkRewrite(Transaction.Rewrite rewrite) {
      List<Transaction.RewriteGroup> groups = rewrite.getGroupsCount() > 0
          ? rewrite.getGroupsList()
          : List.of(Transaction.RewriteGroup.newBuilder()
              .addAllOldFragments(rewrite.getOldFragmentsList())
              .addAllNewFragments(rewrite.getNewFragmentsList())
              .build());
      Set<Long> newIds = new HashSet<>();
      for (Transaction.RewriteGroup group : groups) {
        if (group.getOldFragmentsCount() == 0) {
          throw new InvalidTransactionException("Rewrite group has no old fragments");
        }
        checkRewritesTheTablesFragments(group.getOldFragmentsList());
        // Compaction may carry the fields of the files it rewrites, dropped ones included.
        Set<Integer> carried = new HashSet<>();
        for (DataFragment old : group.getOldFragmentsList()) {
          DataFragment current = existing.getOrDefault(old.getId(), old);
          current.getFilesList().forEach(f -> carried.addAll(f.getFieldsList()));
        }
        checkNewFragments(group.getNewFragmentsList(), "Rewrite");
        checkFiles(group.getNewFragmentsList(), currentSchema(), carried, existing);
        for (DataFragment fragment : group.getNewFragmentsList()) {
          if (fragment.getId() != 0 && !newIds.add(fragment.getId())) {
            throw new InvalidTransactionException(
                "Rewrite gives fragment id " + fragment.getId() + " to two new fragments");
          }
        }
      }
      for (Transaction.RewrittenIndex rewritten : rewrite.getRewrittenIndicesList()) {
        requireUuid(rewritten.hasOldId() ? rewritten.getOldId() : null, "Rewrite.rewritten_indices old_id");
        requireUuid(rewritten.hasNewId() ? rewritten.getNewId() : null, "Rewrite.rewritten_indices new_id");
        if (!rewritten.hasNewIndexDetails()) {
          throw new InvalidTransactionException("Rewrite.rewritten_indices new_index_details is a required field");
        }
        for (IndexFile file : rewritten.getNewIndexFilesList()) {
          RelativePaths.require(file.getPath(), "Index file");
        }
      }
    }

    private void checkMerge(Transaction.Merge merge) {
      requireSchema(merge.getSchemaList(), "Merge");
      List<DataFragment> fragments = merge.getFragmentsList();
      MergeOperation.requirePreserved(latest.manifest().getFragmentsList(), fragments);
      checkUniqueIds(fragments, "Merge.fragments");
      checkFiles(fragments, merge.getSchemaList(), Set.of(), existing);
    }

    private void checkUpdate(Transaction.Update update) {
      checkUniqueIds(update.getUpdatedFragmentsList(), "Update.updated_fragments");
      checkFiles(update.getUpdatedFragmentsList(), currentSchema(), Set.of(), existing);
      if (update.getUpdateMode() == Transaction.UpdateMode.REWRITE_ROWS) {
        // rows move to new fragments; the fragments they leave only gain deletions, as in a Delete
        checkKeepsDataFiles(update.getUpdatedFragmentsList(), "Update");
      }
      checkNewFragments(update.getNewFragmentsList(), "Update");
      // A new fragment is none of the table's: its id is 0 until the builder numbers it, or one the table does not
      // hold (checkExplicitIds), so every file it names is new; fragment 0's files allow it nothing.
      checkFiles(update.getNewFragmentsList(), currentSchema(), Set.of(), FragmentsById.none());
      checkExplicitIds(update.getNewFragmentsList(), true);
    }

    private void checkDataReplacement(Transaction.DataReplacement replacement) {
      List<DataFragment> asFragments = new ArrayList<>();
      for (Transaction.DataReplacementGroup group : replacement.getReplacementsList()) {
        if (!group.hasNewFile()) {
          throw new InvalidTransactionException(
              "DataReplacement group for fragment " + group.getFragmentId() + " carries no new_file");
        }
        if (!existing.containsKey(group.getFragmentId())) {
          throw new InvalidTransactionException("DataReplacement names fragment " + group.getFragmentId()
              + " which the table (version " + latest.version() + ") does not contain");
        }
        // the new file replaces columns of an existing fragment: it holds that fragment's rows
        asFragments.add(DataFragment.newBuilder().setId(group.getFragmentId())
            .setPhysicalRows(existing.get(group.getFragmentId()).getPhysicalRows()).addFiles(group.getNewFile()).build());
      }
      // The replacement files are new by definition, even when a path repeats. Each stands for some of its
      // fragment's columns only, so the fragment's other files still store the rest: no coverage check here.
      checkFiles(asFragments, currentSchema(), Set.of(), FragmentsById.none(), false);
    }

    /**
     * A Delete (and an Update that rewrites rows) only marks rows deleted in the fragments it updates: each keeps the
     * data files and the row count it has in the table. One that names other files was built on another table's
     * fragment of that id (e.g. through a stale Dataset object whose fragment ids were given to other writers'
     * fragments); applied, it would drop that fragment's rows. A fragment gone from the table is the conflict rules'
     * to judge.
     */
    private void checkKeepsDataFiles(List<DataFragment> updated, String operation) {
      for (DataFragment fragment : updated) {
        inTableIfOther(fragment).ifPresent(theirs -> {
          throw new InvalidTransactionException(operation + " updates fragment " + fragment.getId() + " as "
              + filePaths(fragment) + " (" + fragment.getPhysicalRows() + " rows), " + theirs + ": a " + operation
              + " changes only a fragment's deletion file; was the transaction built on a stale copy of the table?");
        });
      }
    }

    /**
     * A Rewrite (compaction) reads the fragments it replaces as they are: each old fragment that carries its files
     * must name the data files and row count the table has under that id. Built through a stale Dataset object, the
     * ids name other writers' fragments, and applied, the Rewrite would remove their rows and keep the writer's own
     * twice. A fragment gone from the table, or one whose files changed since the read version, is the conflict
     * rules' to judge (the lane validates such a transaction against its read version, then checks conflicts first).
     */
    private void checkRewritesTheTablesFragments(List<DataFragment> oldFragments) {
      for (DataFragment old : oldFragments) {
        if (old.getFilesCount() == 0) {
          continue;
        }
        inTableIfOther(old).ifPresent(theirs -> {
          throw new InvalidTransactionException("Rewrite replaces fragment " + old.getId() + " as " + filePaths(old)
              + " (" + old.getPhysicalRows() + " rows), " + theirs
              + ": was the transaction built on a stale copy of the table?");
        });
      }
    }

    /**
     * What the table holds under {@code named}'s id, said for a message, when its data files or (known) row count are
     * not {@code named}'s; empty when they are, or when the table has no fragment of that id.
     */
    private Optional<String> inTableIfOther(DataFragment named) {
      DataFragment current = existing.get(named.getId());
      if (current == null) {
        return Optional.empty();
      }
      List<String> theirs = filePaths(current);
      boolean rowsDiffer = named.getPhysicalRows() > 0 && current.getPhysicalRows() > 0
          && named.getPhysicalRows() != current.getPhysicalRows();
      if (filePaths(named).equals(theirs) && !rowsDiffer) {
        return Optional.empty();
      }
      return Optional.of("but in version " + latest.version() + " that fragment is " + theirs + " ("
          + current.getPhysicalRows() + " rows)");
    }

    private static List<String> filePaths(DataFragment fragment) {
      List<String> paths = new ArrayList<>(fragment.getFilesCount());
      for (DataFile file : fragment.getFilesList()) {
        paths.add(file.hasBaseId() ? file.getBaseId() + ":" + file.getPath() : file.getPath());
      }
      return paths;
    }

    /** Fragments the transaction adds to the table: they must carry known row counts and no foreign row ids. */
    private void checkNewFragments(List<DataFragment> fragments, String operation) {
      for (DataFragment fragment : fragments) {
        if (stableRowIds && fragment.getPhysicalRows() <= 0) {
          throw new InvalidTransactionException(operation + " adds fragment " + fragment.getId()
              + " without physical_rows, but the table uses stable row ids and needs the row count");
        }
        boolean hasRowIds =
            fragment.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET;
        if (latest != null && !stableRowIds && hasRowIds) {
          throw new InvalidTransactionException(operation + " adds fragment " + fragment.getId()
              + " with a row id sequence, but the table does not use stable row ids");
        }
      }
    }

    /**
     * Every file the fragments name: relative paths, known bases; files not already part of the same fragment in
     * the latest version must name at least one field, only fields of the schema (or tombstones) and no more
     * column indices than fields.
     */
    private void checkFiles(List<DataFragment> fragments, List<Field> schema, Set<Integer> alsoAllowed,
        FragmentsById previous) {
      checkFiles(fragments, schema, alsoAllowed, previous, true);
    }

    private void checkFiles(List<DataFragment> fragments, List<Field> schema, Set<Integer> alsoAllowed,
        FragmentsById previous, boolean wholeFragments) {
      Set<Integer> schemaIds = new HashSet<>();
      schema.forEach(field -> schemaIds.add(field.getId()));
      for (DataFragment fragment : fragments) {
        DataFragment before = previous.get(fragment.getId());
        // A fragment may keep naming fields it already stored (e.g. of dropped columns) in rewritten file entries.
        Set<Integer> allowed = new HashSet<>(alsoAllowed);
        if (before != null) {
          before.getFilesList().forEach(f -> allowed.addAll(f.getFieldsList()));
        }
        for (DataFile file : fragment.getFilesList()) {
          RelativePaths.require(file.getPath(), "Data file");
          if (file.hasBaseId()) {
            requireBase(file.getBaseId(), "Data file " + file.getPath());
          }
          if (before == null || !before.getFilesList().contains(file)) {
            checkNewFile(file, schemaIds, allowed);
          }
        }
        if (fragment.hasDeletionFile() && fragment.getDeletionFile().hasBaseId()) {
          requireBase(fragment.getDeletionFile().getBaseId(), "Deletion file of fragment " + fragment.getId());
        }
        if (fragment.hasExternalRowIds()) {
          RelativePaths.require(fragment.getExternalRowIds().getPath(), "External row id file");
        }
        if (fragment.hasExternalCreatedAtVersions()) {
          RelativePaths.require(fragment.getExternalCreatedAtVersions().getPath(), "External version file");
        }
        if (fragment.hasExternalLastUpdatedAtVersions()) {
          RelativePaths.require(fragment.getExternalLastUpdatedAtVersions().getPath(), "External version file");
        }
        if (before == null || !before.equals(fragment)) {
          ReadableFields.checkFragment(fragment, before, kind.lanceName());
          if (wholeFragments) {
            ReadableFields.checkRequiredFieldsStored(fragment, before, schema, kind.lanceName());
          }
        }
      }
    }

    private void checkNewFile(DataFile file, Set<Integer> schemaIds, Set<Integer> alsoAllowed) {
      if (file.getFieldsCount() == 0) {
        throw new InvalidTransactionException("Datafile " + file.getPath() + " does not contain any fields");
      }
      for (int fieldId : file.getFieldsList()) {
        if (fieldId != TOMBSTONE && !schemaIds.contains(fieldId) && !alsoAllowed.contains(fieldId)) {
          throw new SchemaContractException("field id " + fieldId, "Data file " + file.getPath()
              + " names field id " + fieldId + ", which is not in the table schema");
        }
      }
      if (file.getColumnIndicesCount() > file.getFieldsCount()) {
        throw new InvalidTransactionException("Data file " + file.getPath() + " has "
            + file.getColumnIndicesCount() + " column indices for " + file.getFieldsCount() + " fields");
      }
    }

    private void checkIndex(IndexMetadata index) {
      requireUuid(index.hasUuid() ? index.getUuid() : null, "Index '" + index.getName() + "' uuid");
      if (index.hasBaseId()) {
        requireBase(index.getBaseId(), "Index '" + index.getName() + "'");
      }
      for (IndexFile file : index.getFilesList()) {
        RelativePaths.require(file.getPath(), "Index file");
      }
      if (latest != null) {
        ReadableFields.checkNewIndex(index, currentSchemaIds(), ManifestDraft.highWaterMark(latest.manifest()),
            latest.version());
      }
    }

    /** Explicit (non-zero) ids of added fragments must be unique, and new to the table when it keeps its fragments. */
    private void checkExplicitIds(List<DataFragment> fragments, boolean keepsExisting) {
      Set<Long> seen = new HashSet<>();
      for (DataFragment fragment : fragments) {
        long id = fragment.getId();
        if (id == 0) {
          continue;
        }
        if (!seen.add(id) || (keepsExisting && existing.containsKey(id))) {
          throw new InvalidTransactionException("The transaction would leave two fragments with id " + id);
        }
      }
    }

    private void checkUniqueIds(List<DataFragment> fragments, String what) {
      Set<Long> seen = new HashSet<>();
      for (DataFragment fragment : fragments) {
        if (!seen.add(fragment.getId())) {
          throw new InvalidTransactionException(what + " lists fragment " + fragment.getId() + " twice");
        }
      }
    }

    private void requireBase(int baseId, String what) {
      if (!baseIds.contains(baseId)) {
        throw new InvalidTransactionException(what + " refers to base path id " + Integer.toUnsignedString(baseId)
            + ", which the table does not have");
      }
    }

    private Set<Integer> requireSchema(List<Field> schema, String operation) {
      if (schema.isEmpty()) {
        throw new InvalidTransactionException(operation + " carries no schema");
      }
      Set<Integer> ids = new HashSet<>();
      for (Field field : schema) {
        if (field.getId() < 0) {
          throw new InvalidTransactionException(
              operation + " schema field '" + field.getName() + "' has negative id " + field.getId());
        }
        if (field.getParentId() != -1 && !ids.contains(field.getParentId())) {
          throw new InvalidTransactionException(operation + " schema field '" + field.getName() + "' (id "
              + field.getId() + ") names parent " + field.getParentId() + ", which does not precede it");
        }
        if (!ids.add(field.getId())) {
          throw new InvalidTransactionException(
              operation + " schema has two fields with id " + field.getId());
        }
      }
      return ids;
    }

    private List<Field> currentSchema() {
      return latest == null ? List.of() : latest.manifest().getFieldsList();
    }

    private Set<Integer> currentSchemaIds() {
      Set<Integer> ids = new HashSet<>();
      if (latest != null) {
        for (Field field : latest.manifest().getFieldsList()) {
          ids.add(field.getId());
        }
      }
      return ids;
    }

    private static void requireUuid(UUID uuid, String what) {
      if (uuid == null || uuid.getUuid().size() != 16) {
        throw new InvalidTransactionException(what + " must be 16 bytes");
      }
    }
  }
}
