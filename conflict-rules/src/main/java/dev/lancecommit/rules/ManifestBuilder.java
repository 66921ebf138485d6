package dev.lancecommit.rules;

import com.google.protobuf.Timestamp;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.FragmentEdits;
import dev.lancecommit.format.FragmentNamesakes;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashSet;
import java.util.List;
import java.util.Objects;
import java.util.Set;
import java.util.function.Predicate;

/**
 * Builds the next version of a table from the version a transaction applies to and the transaction, the way
 * Lance's {@code Transaction::build_manifest} and {@code write_manifest_file} do (lance-format.md section 4). Pure:
 * no I/O, no clock, no randomness; the same inputs always give the same manifest.
 *
 * <p>Every method expects a transaction that {@link TransactionValidator} accepted against the same table state and
 * the conflict rules cleared against every version since its read version. Bad input still never yields a
 * manifest: it raises {@link InvalidTransactionException}; operations this build cannot apply raise
 * {@link UnsupportedOperationTypeException}.
 */
public final class ManifestBuilder {
  private ManifestBuilder() {}

  /** The highest fragment id the table has handed out (its max_fragment_id, else the highest it holds); -1: none. */
  public static long highestFragmentId(Manifest manifest) {
    return ManifestDraft.highWaterMark(manifest);
  }

  /**
   * The next table state.
   *
   * @param current the latest version (the manifest and its index list), or null when the transaction creates the
   *     table (then it must be an Overwrite)
   * @param txn the transaction to apply (Restore and Clone need {@link #buildRestore} / {@link #buildClone})
   * @param ctx the version number, time and file name of the version being written
   * @return the new manifest (version, writer_version, timestamp, tag, transaction_file, max_fragment_id,
   *     next_row_id and feature flags set; index_section/transaction_section left for the file codec) and its
   *     index list
   */
  public static TableState build(TableState current, Transaction txn, CommitContext ctx) {
    Objects.requireNonNull(txn, "txn");
    Objects.requireNonNull(ctx, "ctx");
    OperationKind kind = OperationKind.of(txn);
    if (kind == OperationKind.RESTORE) {
      throw new IllegalArgumentException("Restore is built from the restored version's manifest: use buildRestore");
    }
    if (kind == OperationKind.CLONE) {
      throw new IllegalArgumentException("Clone is built from the source version's manifest: use buildClone");
    }
    if (current == null && kind != OperationKind.OVERWRITE) {
      throw new InvalidTransactionException(
          "Cannot apply operation " + kind.lanceName() + " to a table that does not exist yet");
    }
    ManifestDraft draft = current == null ? startCreation(txn, ctx) : startFrom(current, txn, ctx);
    apply(draft, kind);
    TableState next = finish(draft, kind == OperationKind.RESERVE_FRAGMENTS);
    SchemaContract.checkBuilt(current, next.manifest(), txn, ctx.features());
    return next;
  }

  /**
   * Restore: the restored version's manifest and indices become the new version. As in Lance the restored content
   * (schema, fragments, config, tag, writer_version, ...) is taken as it was; the version number, timestamp and
   * transaction file are the new commit's, and feature flags are recomputed. Unlike Lance, max_fragment_id and
   * next_row_id never move backwards: they keep the latest version's high-water marks when those are higher, so
   * no fragment id or stable row id is ever handed out twice.
   */
  public static TableState buildRestore(
      TableState current, TableState restored, Transaction txn, CommitContext ctx) {
    Objects.requireNonNull(current, "current");
    Objects.requireNonNull(restored, "restored");
    if (!txn.hasRestore()) {
      throw new IllegalArgumentException("buildRestore needs a Restore transaction, got " + txn.getOperationCase());
    }
    long target = txn.getRestore().getVersion();
    if (target != restored.version()) {
      throw new IllegalArgumentException(
          "Restore names version " + target + " but the manifest given is version " + restored.version());
    }
    if (target < 1 || target > current.version()) {
      throw new InvalidTransactionException("Cannot restore version " + target
          + ": the table's versions are 1.." + current.version());
    }
    requireNextVersion(current, ctx);
    Manifest previous = current.manifest();
    Manifest.Builder manifest = restored.manifest().toBuilder()
        .setVersion(ctx.version())
        .setTimestamp(timestamp(ctx.timestamp()))
        .setTransactionFile(ctx.transactionFileName())
        .clearIndexSection()
        .clearTransactionSection();
    long highWaterMark = Math.max(
        ManifestDraft.highWaterMark(restored.manifest()), ManifestDraft.highWaterMark(previous));
    if (highWaterMark >= 0) {
      manifest.setMaxFragmentId((int) highWaterMark);
    }
    boolean stableRowIds = FeatureFlags.usesStableRowIds(restored.manifest());
    if (stableRowIds) {
      manifest.setNextRowId(Math.max(restored.manifest().getNextRowId(), previous.getNextRowId()));
    }
    // A restore never takes a sticky flag away: the latest version's count, not the restored one's.
    applyFeatureFlags(manifest, stableRowIds, ctx.features(), SemanticTypes.stickyFlags(current, txn, ctx.features()));
    return new TableState(manifest.build(), restored.indices());
  }

  /**
   * Clone: the first version of a new table (or branch), the source manifest copied with its version number.
   * Shallow: data and deletion files and indices lacking a base get a new base (id = max existing id + 1, or 0)
   * pointing at the source root; branch = branch_name. Deep: the files were copied into the new table, so base
   * paths, branch and tag are cleared and no file or index keeps a base id.
   */
  public static TableState buildClone(TableState source, Transaction txn, CommitContext ctx) {
    return CloneOperation.build(source, txn, ctx);
  }

  private static ManifestDraft startCreation(Transaction txn, CommitContext ctx) {
    if (ctx.version() != 1) {
      throw new IllegalArgumentException("A created table starts at version 1, not " + ctx.version());
    }
    Manifest.Builder manifest = Manifest.newBuilder()
        .setVersion(ctx.version())
        .setWriterVersion(ctx.writerVersion());
    Set<Integer> baseIds = new HashSet<>();
    for (BasePath base : txn.getOverwrite().getInitialBasesList()) {
      if (!baseIds.add(base.getId())) {
        throw new InvalidTransactionException(
            "Duplicate base path ID " + Integer.toUnsignedString(base.getId())
                + " detected. Base path IDs must be unique.");
      }
      manifest.addBasePaths(base);
    }
    return new ManifestDraft(null, txn, ctx, manifest, ctx.newTableUsesStableRowIds(), 0);
  }

  private static ManifestDraft startFrom(TableState current, Transaction txn, CommitContext ctx) {
    requireNextVersion(current, ctx);
    Manifest previous = current.manifest();
    // Lance's Manifest::new_from_previous: content carries over, per-version fields are reset.
    Manifest.Builder manifest = previous.toBuilder()
        .setVersion(ctx.version())
        .setWriterVersion(ctx.writerVersion())
        .setVersionAuxData(0)
        .clearIndexSection()
        .clearTransactionSection()
        .clearTag()
        .clearTimestamp();
    boolean stableRowIds = FeatureFlags.usesStableRowIds(previous);
    return new ManifestDraft(current, txn, ctx, manifest, stableRowIds, previous.getNextRowId());
  }

  private static void requireNextVersion(TableState current, CommitContext ctx) {
    if (ctx.version() != current.version() + 1) {
      throw new IllegalArgumentException("The version after " + current.version() + " is "
          + (current.version() + 1) + ", not " + ctx.version());
    }
  }

  private static void apply(ManifestDraft draft, OperationKind kind) {
    Transaction txn = draft.txn();
    switch (kind) {
      case APPEND -> AppendOperation.apply(draft, txn.getAppend());
      case DELETE -> DeleteOperation.apply(draft, txn.getDelete());
      case OVERWRITE -> OverwriteOperation.apply(draft, txn.getOverwrite());
      case CREATE_INDEX -> CreateIndexOperation.apply(draft, txn.getCreateIndex());
      case REWRITE -> RewriteOperation.apply(draft, txn.getRewrite());
      case RESERVE_FRAGMENTS -> ReserveFragmentsOperation.apply(draft, txn.getReserveFragments());
      case UPDATE_CONFIG -> UpdateConfigOperation.apply(draft, txn.getUpdateConfig());
      case UPDATE -> UpdateOperation.apply(draft, txn.getUpdate());
      case MERGE -> MergeOperation.apply(draft, txn.getMerge());
      case PROJECT -> ProjectOperation.apply(draft, txn.getProject());
      case DATA_REPLACEMENT -> DataReplacementOperation.apply(draft, txn.getDataReplacement());
      case UPDATE_BASES -> UpdateBasesOperation.apply(draft, txn.getUpdateBases());
      case UPDATE_MEM_WAL_STATE -> UpdateMemWalStateOperation.apply(draft, txn.getUpdateMemWalState());
      case DATA_OVERLAY -> throw new UnsupportedOperationTypeException(kind.lanceName(), "overlay files are an"
          + " unstable Lance feature (reader and writer flag 64, UNSTABLE_DATA_OVERLAY_FILES) whose layout may still"
          + " change; Lance release builds refuse it too unless explicitly opted in");
      default -> throw new UnsupportedOperationTypeException(kind.lanceName());
    }
  }

  private static TableState finish(ManifestDraft draft, boolean reserveFragments) {
    Manifest.Builder manifest = draft.manifest();
    ArrayList<DataFragment> fragments = draft.takeFragments();
    // On a version built here the carried fragments are known to be in order and to match the flags (see Carried).
    boolean onNormalized = !draft.creating() && draft.current().normalized();
    FragmentEdits edits = onNormalized ? draft.edits() : null;
    int[] changedAt = edits == null ? null : edits.changedAt(fragments.size());
    boolean ascending = changedAt != null ? ascendingAround(fragments, changedAt)
        : strictlyAscending(fragments, onNormalized ? draft.previous().getFragmentsList() : List.of());
    if (!ascending) {
      fragments.sort(Comparator.comparingLong(DataFragment::getId));
      edits = null; // the places it names moved
    }
    Carried carried = edits != null ? new Carried(changedAt, fragments.size()) : Carried.of(draft, fragments);
    for (int i : carried.changedAt()) {
      fragments.set(i, withoutTombstonedFiles(fragments.get(i)));
    }
    requireUniqueIds(fragments, ascending);
    int previousCount = draft.creating() ? 0 : draft.previous().getFragmentsCount();
    if (edits != null && manifest.getFragmentsCount() == previousCount) {
      edit(manifest, edits, fragments);
    } else if (previousCount > 0 && carried.firstChanged() == previousCount
        && manifest.getFragmentsCount() == previousCount) {
      // Every fragment of the version before is carried in its place (an Append), and the draft's manifest still
      // holds them as it started from that version: only the new ones are added, not the table's every fragment.
      manifest.addAllFragments(fragments.subList(previousCount, fragments.size()));
    } else {
      manifest.clearFragments().addAllFragments(fragments);
    }

    Transaction txn = draft.txn();
    CommitContext ctx = draft.ctx();
    manifest.setTag(txn.getTag())
        .setTimestamp(timestamp(ctx.timestamp()))
        .setTransactionFile(ctx.transactionFileName());
    updateMaxFragmentId(manifest, fragments);
    if (reserveFragments) {
      long base = manifest.hasMaxFragmentId() ? Integer.toUnsignedLong(manifest.getMaxFragmentId()) : 0;
      long reserved = base + draft.reservedFragments();
      if (reserved > ManifestDraft.MAX_FRAGMENT_ID) {
        throw new InvalidTransactionException("Cannot reserve " + draft.reservedFragments()
            + " fragment ids: the id space ends at " + ManifestDraft.MAX_FRAGMENT_ID);
      }
      manifest.setMaxFragmentId((int) reserved);
    }
    List<DataFragment> changed = carried.changed(fragments);
    if (draft.stableRowIds()) {
      manifest.setNextRowId(draft.nextRowId());
    } else {
      refuseRowIds(changed);
    }
    settleDataFormat(manifest, draft, carried.withOneCarried(changed, fragments));
    long sticky = SemanticTypes.stickyFlags(draft.creating() ? null : draft.current(), txn, ctx.features());
    FeatureFlags.FragmentFacts facts = onNormalized
        ? carried.facts(draft.previous(), fragments) : FeatureFlags.FragmentFacts.scan(fragments);
    applyFeatureFlags(manifest, draft.stableRowIds(), ctx.features(), sticky, facts);
    return edits == null ? TableState.normalized(manifest.build(), draft.indices())
        : TableState.normalized(manifest.build(), draft.indices(), draft.previous().getFragmentsList(), edits);
  }

  /** A removal moves every fragment after it once: beyond this many, the list is added again whole instead. */
  private static final int REMOVALS_IN_PLACE = 16;

  /**
   * Makes the manifest's fragments, still the version before's, {@code fragments} by the {@code edits} that made
   * those: the removed ones taken out, the replaced ones set in their places and the new ones added, instead of adding
   * every fragment of the table again one by one.
   */
  private static void edit(Manifest.Builder manifest, FragmentEdits edits, List<DataFragment> fragments) {
    int[] removedAt = edits.removedAt();
    if (removedAt.length > REMOVALS_IN_PLACE) {
      manifest.clearFragments().addAllFragments(fragments);
      return;
    }
    for (int k = removedAt.length - 1; k >= 0; k--) {
      manifest.removeFragments(removedAt[k]);
    }
    for (int at : edits.replacedAt()) {
      manifest.setFragments(at, fragments.get(at));
    }
    manifest.addAllFragments(fragments.subList(edits.tailFrom(), fragments.size()));
  }

  /**
   * True when the ids rise around every place {@code changedAt} names. The fragments between those places are the
   * version before's in its order, which rose already, so no other pair needs reading.
   */
  private static boolean ascendingAround(List<DataFragment> fragments, int[] changedAt) {
    int n = fragments.size();
    for (int at : changedAt) {
      long id = fragments.get(at).getId();
      if ((at > 0 && fragments.get(at - 1).getId() >= id) || (at + 1 < n && id >= fragments.get(at + 1).getId())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Which fragments of the next version are carried over unchanged from the version it is built on: the very same
   * message, under the same id. When that version was built here ({@link TableState#normalized}) those passed the
   * builder's per-fragment work already, so it looks only at the others and the cost of a build follows what the
   * transaction changes, not the size of the table. On a version read from storage every fragment counts as
   * changed (whoever wrote it may not have dropped tombstoned files), so the first build after a load normalizes all.
   * An operation that edited the version's list ({@link FragmentEdits}) names the changed places itself; otherwise
   * one walk of both lists finds them.
   */
  private static final class Carried {
    /** Places of the next version's fragments that are not carried, ascending. */
    private final int[] changedAt;
    private final int size;

    Carried(int[] changedAt, int size) {
      this.changedAt = changedAt;
      this.size = size;
    }

    /** {@code sorted}: the next version's fragments, sorted by id. */
    static Carried of(ManifestDraft draft, List<DataFragment> sorted) {
      int n = sorted.size();
      if (draft.creating() || !draft.current().normalized()) {
        int[] all = new int[n];
        for (int i = 0; i < n; i++) {
          all[i] = i;
        }
        return new Carried(all, n);
      }
      return new Carried(FragmentNamesakes.of(draft.previous().getFragmentsList(), sorted).changed(), n);
    }

    int[] changedAt() {
      return changedAt;
    }

    /** The first fragment that may not be carried: every one before it is. */
    int firstChanged() {
      return changedAt.length > 0 ? changedAt[0] : size;
    }

    /** The place of the first carried fragment that {@code test} accepts; -1 when none. */
    private int firstCarried(List<DataFragment> sorted, Predicate<DataFragment> test) {
      int k = 0;
      for (int i = 0; i < size; i++) {
        if (k < changedAt.length && changedAt[k] == i) {
          k++;
        } else if (test.test(sorted.get(i))) {
          return i;
        }
      }
      return -1;
    }

    /**
     * The fragment facts the feature flags need, reading only the fragments that changed: the carried ones were part
     * of {@code previous}, whose flags this builder computed from them (a previous version without the deletion-files
     * flag has no carried fragment with a deletion file; its stable-row-ids flag says whether every carried fragment
     * has row ids or none does). Only when {@code previous} had deletion files and no changed fragment has one are the
     * carried ones looked at, up to the first that has one.
     */
    FeatureFlags.FragmentFacts facts(Manifest previous, List<DataFragment> sorted) {
      boolean previousRowIds = (previous.getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS) != 0;
      boolean previousDeletions = (previous.getReaderFeatureFlags() & FeatureFlags.DELETION_FILES) != 0;
      boolean anyCarried = changedAt.length < size;
      boolean anyDeletionFile = false;
      boolean anyRowIds = anyCarried && previousRowIds;
      // the first fragment without row ids: a carried one when the version before had none
      int withoutRowIds = anyCarried && !previousRowIds ? firstCarried(sorted, fragment -> true) : -1;
      for (int at : changedAt) {
        DataFragment fragment = sorted.get(at);
        anyDeletionFile |= fragment.hasDeletionFile();
        if (FeatureFlags.hasRowIds(fragment)) {
          anyRowIds = true;
        } else if (withoutRowIds < 0 || at < withoutRowIds) {
          withoutRowIds = at;
        }
      }
      if (!anyDeletionFile && anyCarried && previousDeletions) {
        anyDeletionFile = firstCarried(sorted, DataFragment::hasDeletionFile) >= 0;
      }
      return new FeatureFlags.FragmentFacts(anyDeletionFile, anyRowIds,
          withoutRowIds < 0 ? null : sorted.get(withoutRowIds));
    }

    List<DataFragment> changed(List<DataFragment> sorted) {
      List<DataFragment> changed = new ArrayList<>(changedAt.length);
      for (int at : changedAt) {
        changed.add(sorted.get(at));
      }
      return changed;
    }

    /**
     * {@code changed} and one carried fragment with files: enough to infer the data storage version of the
     * whole table, since the carried files agree with each other.
     */
    List<DataFragment> withOneCarried(List<DataFragment> changed, List<DataFragment> sorted) {
      List<DataFragment> looked = new ArrayList<>(changed.size() + 1);
      int carriedWithFiles = firstCarried(sorted, fragment -> fragment.getFilesCount() > 0);
      if (carriedWithFiles >= 0) {
        looked.add(sorted.get(carriedWithFiles));
      }
      looked.addAll(changed);
      return looked;
    }
  }

  /** Row id sequences would switch stable row ids on, which a table only chooses when it is created. */
  private static void refuseRowIds(List<DataFragment> fragments) {
    for (DataFragment fragment : fragments) {
      if (fragment.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET) {
        throw new InvalidTransactionException("Fragment " + fragment.getId()
            + " carries a row id sequence, but the table does not use stable row ids");
      }
    }
  }

  /** Data files whose every field is tombstoned (-2) hold nothing readable any more. */
  private static DataFragment withoutTombstonedFiles(DataFragment fragment) {
    boolean anyDead = false;
    for (DataFile file : fragment.getFilesList()) {
      anyDead |= isTombstoned(file);
    }
    if (!anyDead) {
      return fragment;
    }
    DataFragment.Builder kept = fragment.toBuilder().clearFiles();
    for (DataFile file : fragment.getFilesList()) {
      if (!isTombstoned(file)) {
        kept.addFiles(file);
      }
    }
    return kept.build();
  }

  private static boolean isTombstoned(DataFile file) {
    // Runs over every file of every fragment on each commit: a plain loop, no stream.
    for (int i = 0, n = file.getFieldsCount(); i < n; i++) {
      if (file.getFields(i) != -2) {
        return false;
      }
    }
    return true;
  }

  /**
   * True when the ids rise from each fragment to the next: sorted already, and no id twice. {@code previousSorted}
   * holds the fragments, in strictly ascending id order, of the version built on (or nothing): where the fragments
   * follow each other there as the very same messages they are in order without reading their ids, so a version
   * that carries the table over reads only the ids around what it changed.
   */
  private static boolean strictlyAscending(List<DataFragment> fragments, List<DataFragment> previousSorted) {
    int n = fragments.size();
    int before = previousSorted.size();
    // A run the lists begin with as the very same messages is in order already: the walk starts after it.
    int i = FragmentNamesakes.carriedPrefix(previousSorted, fragments);
    int j = i;
    int lastInBefore = i > 0 ? i - 1 : -2;
    for (; i < n; i++) {
      DataFragment fragment = fragments.get(i);
      int inBefore = -1;
      if (j < before && previousSorted.get(j) == fragment) {
        inBefore = j++;
      } else if (j < before) {
        long id = fragment.getId(); // a changed fragment: move past those it replaced or that were removed
        while (j < before && previousSorted.get(j).getId() <= id) {
          j++;
        }
      }
      boolean inOrder = i == 0 || (inBefore >= 0 && inBefore == lastInBefore + 1)
          || fragments.get(i - 1).getId() < fragment.getId();
      if (!inOrder) {
        return false;
      }
      lastInBefore = inBefore;
    }
    return true;
  }

  /** {@code ascending}: the ids were found strictly ascending, so only the range is left to check. */
  private static void requireUniqueIds(List<DataFragment> sortedFragments, boolean ascending) {
    for (int i = 1; !ascending && i < sortedFragments.size(); i++) {
      if (sortedFragments.get(i).getId() == sortedFragments.get(i - 1).getId()) {
        throw new InvalidTransactionException(
            "The transaction would leave two fragments with id " + sortedFragments.get(i).getId());
      }
    }
    if (!sortedFragments.isEmpty()) {
      long last = sortedFragments.get(sortedFragments.size() - 1).getId();
      if (last < 0 || last > ManifestDraft.MAX_FRAGMENT_ID) {
        throw new InvalidTransactionException(
            "Fragment id " + Long.toUnsignedString(last) + " is out of range (ids are 32-bit)");
      }
    }
  }

  /** The high-water mark only ever grows; with no fragments ever, it stays absent. */
  private static void updateMaxFragmentId(Manifest.Builder manifest, List<DataFragment> sortedFragments) {
    if (sortedFragments.isEmpty()) {
      return;
    }
    long maxId = sortedFragments.get(sortedFragments.size() - 1).getId();
    if (!manifest.hasMaxFragmentId() || maxId > Integer.toUnsignedLong(manifest.getMaxFragmentId())) {
      manifest.setMaxFragmentId((int) maxId);
    }
  }

  /**
   * A created table takes the version of its data files (or the default); an existing one keeps its own, except
   * that a legacy table whose files are newer is moved up (as Lance's check_storage_version does), and a v2 table
   * must not receive files of another version.
   */
  private static void settleDataFormat(Manifest.Builder manifest, ManifestDraft draft, List<DataFragment> looked) {
    String inferred = StorageVersions.infer(looked);
    if (draft.creating()) {
      String version = inferred != null ? inferred : StorageVersions.normalize(draft.ctx().defaultStorageVersion());
      manifest.setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion(version));
      return;
    }
    if (!manifest.hasDataFormat() || inferred == null) {
      return;
    }
    String declared = StorageVersions.normalize(manifest.getDataFormat().getVersion());
    if (StorageVersions.LEGACY.equals(declared)) {
      if (StorageVersions.compare(inferred, declared) > 0) {
        manifest.getDataFormatBuilder().setVersion(inferred);
      }
    } else if (!declared.equals(inferred)) {
      throw new InvalidTransactionException("The operation added files with version " + inferred
          + ". However, the data storage version is " + manifest.getDataFormat().getVersion() + ".");
    }
  }

  static void applyFeatureFlags(Manifest.Builder manifest, boolean stableRowIds) {
    applyFeatureFlags(manifest, stableRowIds, FormatFeatures.standard(), 0);
  }

  static void applyFeatureFlags(
      Manifest.Builder manifest, boolean stableRowIds, FormatFeatures features, long sticky) {
    applyFeatureFlags(manifest, stableRowIds, features, sticky,
        FeatureFlags.FragmentFacts.scan(manifest.getFragmentsList()));
  }

  private static void applyFeatureFlags(Manifest.Builder manifest, boolean stableRowIds, FormatFeatures features,
      long sticky, FeatureFlags.FragmentFacts facts) {
    try {
      FeatureFlags.apply(manifest, stableRowIds, true, features, sticky, facts);
    } catch (IllegalArgumentException e) {
      throw new InvalidTransactionException(e.getMessage(), e);
    }
  }

  static Timestamp timestamp(Instant instant) {
    return Timestamp.newBuilder().setSeconds(instant.getEpochSecond()).setNanos(instant.getNano()).build();
  }
}
