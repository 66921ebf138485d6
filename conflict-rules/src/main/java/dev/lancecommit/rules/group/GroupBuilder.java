package dev.lancecommit.rules.group;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.format.RulesException;
import dev.lancecommit.rules.SchemaContractException;
import dev.lancecommit.rules.TransactionValidator;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.FragmentOverlap;
import dev.lancecommit.rules.conflict.RebaseInputs;
import dev.lancecommit.rules.rebase.DeletionFileIds;
import dev.lancecommit.rules.rebase.DeletionRebase;
import dev.lancecommit.rules.rebase.RebasePlan;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import org.roaringbitmap.RoaringBitmap;

/**
 * Decides, one waiting transaction at a time, what the next version of a table is: the first transaction offered
 * starts it, and later ones join while they commute with it ({@link GroupCommit}) and the limits allow. Each
 * transaction offered is validated and checked by the conflict rules against every version since its read version
 * and against the members already accepted (as if those had committed one by one after {@code base}); a Delete or
 * Update is rebased onto them. A transaction that fails is refused alone and never sinks the group.
 *
 * <p>A Delete or Update member is checked against the table the members before it leave. That table is built only
 * when a member needs it: while each member names only fragments the members since the last table built leave as they
 * were ({@link #seesOnlyUnchangedFragments}), what it can see there is what it would see after those members, so it is
 * checked against the last table built under the next version number. A group of members on disjoint fragments thus
 * costs one build, of the merged transaction, whose table is the union of theirs (GroupedRebaseTest checks it against
 * the members committed one by one); members that share fragments are built one by one and the merged version is
 * compared with them, as before. A member whose own build fails is found when the merged build fails (the lane then
 * commits the members one by one) or when a later member needs it built (the group then closes).
 *
 * <p>Pure apart from what it reads through {@link History} (the committed versions, deletion vectors): nothing is
 * written. {@link #build} gives the one transaction to record, the next table state and the deletion files to write
 * before it. Not thread-safe: one builder per version being prepared.
 */
public final class GroupBuilder {

  /** What the builder reads of the table's history, all of it at or before {@code base}. */
  public interface History {
    /** The transactions of every version after {@code readVersion} up to the base version, ascending. */
    List<CommittedTransaction> committedSince(long readVersion);

    /**
     * The table as of {@code version} (at most the base version), or empty when that version no longer exists.
     */
    Optional<TableState> stateAt(long version);

    /** The stored deletion vector of {@code fragment} (which has a deletion file). */
    RoaringBitmap deletionVector(DataFragment fragment);
  }

  /** How the manifests of the versions are stamped (number, time, writer, file name). */
  @FunctionalInterface
  public interface Contexts {
    CommitContext of(long version, Transaction recorded);
  }

  /** Limits of one group; {@code maxMembers} 1 turns grouping off. */
  public record Limits(int maxMembers, long maxBytes) {
    public Limits {
      if (maxMembers < 1 || maxBytes < 1) {
        throw new IllegalArgumentException("Group limits must be positive: " + maxMembers + ", " + maxBytes);
      }
    }

    public static Limits none() {
      return new Limits(1, Long.MAX_VALUE);
    }
  }

  /**
   * A transaction waiting to commit.
   *
   * @param txn the decoded transaction
   * @param affectedRows the portable row-address map the writer sent, if any
   * @param rebase false when the writer wants it committed exactly on its read version
   * @param groupable false when it must commit alone whatever it is
   * @param bytes its encoded size, counted against {@link Limits#maxBytes}
   */
  public record Candidate(Transaction txn, Optional<byte[]> affectedRows, boolean rebase, boolean groupable,
      long bytes) {
    public Candidate {
      Objects.requireNonNull(txn, "txn");
      Objects.requireNonNull(affectedRows, "affectedRows");
    }
  }

  /** What became of an offered transaction. */
  public sealed interface Verdict {
    /** Accepted: {@code applied} is it as it commits (for a Delete/Update: rebased onto the members before it). */
    record Joined(Transaction applied) implements Verdict {}

    /** A committed version already carries it (its own transaction, or a group naming it). */
    record AlreadyCommitted(long version) implements Verdict {}

    /** It cannot commit: a conflict, or invalid. Nothing of it is in the version. */
    record Refused(RuntimeException reason) implements Verdict {}

    /** It does not commute with the group (or the limits are reached): it waits for the next version. */
    record Closed(String reason) implements Verdict {}

    /** Its read version is ahead of the base: the table moved on outside the lane; reload and offer it again. */
    record Ahead() implements Verdict {}
  }

  /** The version as built. */
  public record Built(Transaction recorded, TableState next, Map<String, byte[]> deletionFiles,
      List<Transaction> members) {
    /** True when several writers' transactions share the version. */
    public boolean isGroup() {
      return members.size() > 1;
    }
  }

  private final TableState base;
  private final long firstVersion;
  private final Limits limits;
  private final FormatFeatures features;
  private final History history;
  private final Contexts contexts;

  private final List<Transaction> members = new ArrayList<>();
  private final List<CommittedTransaction> virtual = new ArrayList<>();
  private final Map<String, byte[]> pendingFiles = new LinkedHashMap<>();
  private final Map<Long, TableState> statesAt = new LinkedHashMap<>();
  /** The table after the members built so far (the base until a member needs it built). */
  private TableState virtualLatest;
  /** Delete/Update members accepted after {@link #virtualLatest} and not built into it yet, in order. */
  private final List<Transaction> unbuilt = new ArrayList<>();
  /** Every fragment id the {@link #unbuilt} members update or remove. */
  private final Set<Long> changedByUnbuilt = new HashSet<>();
  /** The highest fragment id {@link #virtualLatest} had handed out (-1: none), once asked. */
  private Long highestBuiltId;
  /** {@link #virtualLatest} under the number of the version after the unbuilt members, made when first asked. */
  private TableState unbuiltView;
  /** An unbuilt member could not be built on its own: the group takes no more members and cannot be built as one. */
  private RuntimeException unbuildable;
  private boolean closed;
  private long bytes;

  /**
   * @param base the latest version the next one is built on (null: the table has none yet)
   * @param firstVersion the oldest version the table has (0 while it has none)
   */
  public GroupBuilder(TableState base, long firstVersion, Limits limits, FormatFeatures features, History history,
      Contexts contexts) {
    this.base = base;
    this.firstVersion = firstVersion;
    this.limits = Objects.requireNonNull(limits, "limits");
    this.features = Objects.requireNonNull(features, "features");
    this.history = Objects.requireNonNull(history, "history");
    this.contexts = Objects.requireNonNull(contexts, "contexts");
    this.virtualLatest = base;
  }

  public boolean isEmpty() {
    return members.isEmpty();
  }

  public int size() {
    return members.size();
  }

  /** True once no further transaction can join (the first one commits alone, or a limit is reached). */
  public boolean isClosed() {
    return closed || unbuildable != null || members.size() >= limits.maxMembers();
  }

  /**
   * Offers the next waiting transaction. A failure to read the history (a store error) propagates: it concerns
   * this transaction only, and the members accepted so far stay.
   */
  public Verdict offer(Candidate candidate) {
    Objects.requireNonNull(candidate, "candidate");
    Transaction txn = candidate.txn();
    if (isClosed()) {
      return new Verdict.Closed("the version is complete");
    }
    if (!members.isEmpty()) {
      if (!candidate.groupable()) {
        return new Verdict.Closed("it commits alone");
      }
      if (bytes + candidate.bytes() > limits.maxBytes()) {
        return new Verdict.Closed("the group holds " + bytes + " bytes of transactions");
      }
      Optional<String> why;
      try {
        why = GroupCommit.whyNotWith(txn, members.get(0), base);
      } catch (InvalidTransactionException e) {
        why = Optional.of(e.getMessage()); // no operation: refused as the first of the next version
      }
      if (why.isPresent()) {
        return new Verdict.Closed(why.get());
      }
    }
    long baseVersion = base == null ? 0 : base.version();
    if (base != null && Long.compareUnsigned(txn.getReadVersion(), baseVersion) > 0) {
      return new Verdict.Ahead();
    }
    if (!unbuilt.isEmpty() && !seesOnlyUnchangedFragments(txn) && !buildUnbuilt()) {
      return new Verdict.Closed("an earlier member cannot be built on its own");
    }
    try {
      GroupMembers.requireAbsent(txn);
      return accept(candidate, OperationKind.of(txn));
    } catch (RulesException e) {
      return new Verdict.Refused(e);
    }
  }

  /**
   * True when every fragment id {@code txn} updates or removes was handed out by the last table built and is updated
   * or removed by no unbuilt member: what it sees there under those ids (a fragment, or none) is what it would see
   * after them, since the fragments the unbuilt members add have ids above all of those. Its new fragments are looked
   * up nowhere (they are none of the table's).
   */
  private boolean seesOnlyUnchangedFragments(Transaction txn) {
    if (!virtualLatest.normalized()) {
      return false; // read from storage: its first build may rewrite any fragment (tombstoned files dropped)
    }
    if (highestBuiltId == null) {
      highestBuiltId = ManifestBuilder.highestFragmentId(virtualLatest.manifest());
    }
    for (long id : FragmentOverlap.modifiedFragmentIds(txn)) {
      if (!handedOut(id) || changedByUnbuilt.contains(id)) {
        return false;
      }
    }
    return true;
  }

  private boolean handedOut(long id) {
    return highestBuiltId >= 0 && Long.compareUnsigned(id, highestBuiltId) <= 0;
  }

  /** Builds the unbuilt members into {@link #virtualLatest}, one by one; false (and the group closed) on a failure. */
  private boolean buildUnbuilt() {
    try {
      for (Transaction member : unbuilt) {
        long version = virtualLatest.version() + 1;
        virtualLatest = ManifestBuilder.build(virtualLatest, member, contexts.of(version, member));
      }
    } catch (RuntimeException e) {
      unbuildable = e;
      return false;
    }
    unbuilt.clear();
    changedByUnbuilt.clear();
    unbuiltView = null;
    highestBuiltId = null;
    return true;
  }

  /** The table the next member is checked and rebased against: the members before it applied. */
  private TableState latest() {
    if (unbuilt.isEmpty()) {
      return virtualLatest;
    }
    if (unbuiltView == null) {
      // Only the fragments a member names are looked at (seesOnlyUnchangedFragments), and the version number.
      Manifest renumbered = virtualLatest.manifest().toBuilder()
          .setVersion(virtualLatest.version() + unbuilt.size()).build();
      unbuiltView = TableState.normalized(renumbered, virtualLatest.indices());
    }
    return unbuiltView;
  }

  private Verdict accept(Candidate candidate, OperationKind kind) {
    Transaction txn = candidate.txn();
    long readVersion = txn.getReadVersion();
    // A transaction that is only stale can fail checks made against the latest version (a Merge missing a fragment
    // appended since): the conflict rules decide first, so the writer hears "retry" or "incompatible", not
    // "malformed". With nothing committed since, invalid is invalid.
    RuntimeException invalid = null;
    TableState latest = latest();
    try {
      TransactionValidator.validate(txn, latest, features);
    } catch (InvalidTransactionException | SchemaContractException e) {
      if (latest == null || readVersion >= latest.version() || readVersion == 0) {
        throw e;
      }
      // Valid against the version it was built on means merely stale; invalid there means invalid, full stop.
      TransactionValidator.validate(txn, stateAt(readVersion), features);
      invalid = e;
    }
    if (readVersion != 0 && readVersion < firstVersion) {
      throw new InvalidTransactionException("read_version " + readVersion + " is older than version " + firstVersion
          + ", the first this table has (it was created by a Clone at that version, or older versions were cleaned"
          + " up); rebuild the transaction on version " + (base == null ? 0 : base.version()));
    }
    List<CommittedTransaction> since = new ArrayList<>(base == null ? List.of() : history.committedSince(readVersion));
    since.addAll(virtual);
    RebaseInputs inputs = RebaseInputs.of(candidate.affectedRows(), candidate.rebase());
    boolean deleteOrUpdate = kind == OperationKind.DELETE || kind == OperationKind.UPDATE;
    if (deleteOrUpdate && !since.isEmpty()) {
      inputs = inputs.toBuilder()
          .initialFragmentsModifiedBy(txn, stateAt(readVersion)).build();
    }
    ConflictOutcome outcome = ConflictResolver.checkAll(txn, since, inputs);
    switch (outcome.kind()) {
      case ALREADY_COMMITTED -> {
        if (base == null || outcome.theirVersion() > base.version()) {
          // the lane offers each uuid once per version; a member repeated within the group is the writer's error
          throw new InvalidTransactionException("Transaction " + txn.getUuid() + " is already in this version");
        }
        return new Verdict.AlreadyCommitted(outcome.theirVersion());
      }
      case RETRYABLE, INCOMPATIBLE -> throw outcome.toException();
      case REBASE, COMPATIBLE -> { }
    }
    if (invalid != null) {
      throw invalid;
    }

    Transaction applied = txn;
    Map<String, byte[]> files = Map.of();
    if (deleteOrUpdate) {
      // Delete and Update move to the latest version; over a concurrent Delete/Update of the same fragments (a
      // committed one or an earlier member) their deletion vectors are merged, as Lance's own commit loop would do.
      TableState onto = latest;
      RebasePlan plan = DeletionRebase.rebase(txn, outcome, inputs, onto, this::deletionVector,
          DeletionFileIds.contentAddressed(txn.getUuid() + "@" + onto.version()));
      applied = plan.transaction();
      files = plan.filesToWrite();
    }
    boolean first = members.isEmpty();
    boolean alone = !candidate.groupable() || GroupCommit.whyAlone(txn, base).isPresent();
    if (deleteOrUpdate && !(first && alone)) {
      // The state after this member is what the next one is checked and rebased against: built when one needs it.
      unbuilt.add(applied);
      changedByUnbuilt.addAll(FragmentOverlap.modifiedFragmentIds(applied));
      unbuiltView = null;
    }
    pendingFiles.putAll(files);
    members.add(applied);
    virtual.add(new CommittedTransaction(baseVersionOf() + members.size(), applied));
    bytes += candidate.bytes();
    if (first && alone) {
      closed = true;
    }
    return new Verdict.Joined(applied);
  }

  private long baseVersionOf() {
    return base == null ? 0 : base.version();
  }

  /**
   * The version: for one member, its transaction as it commits; for a group, {@link GroupCommit#merge} under
   * {@code groupUuid} on the base version with {@code extraProperties}. {@code restored} reads the manifest a
   * Restore brings back.
   *
   * @throws IllegalStateException when nothing was accepted, when a member of a group cannot be built on its own, or
   *     when the merged group would not give the table the members give one by one (a gap in {@link GroupCommit}'s
   *     rules); the caller commits them one by one instead
   * @throws RuntimeException what building a lone member failed with
   */
  public Built build(String groupUuid, Map<String, String> extraProperties) {
    if (members.isEmpty()) {
      throw new IllegalStateException("No transaction was accepted");
    }
    // Members that shared fragments were built one by one as they joined (buildUnbuilt): the merged version must
    // give the table they give, so the rest are built too and the two compared. Members on disjoint fragments only
    // are never built alone: their merged transaction is the union of theirs.
    boolean sequential = virtualLatest != base;
    if (unbuildable == null && sequential) {
      buildUnbuilt();
    }
    if (unbuildable != null) {
      if (members.size() == 1) {
        throw unbuildable;
      }
      throw new IllegalStateException("A member of group commit " + groupUuid + " cannot be built on its own: "
          + unbuildable.getMessage(), unbuildable);
    }
    long version = baseVersionOf() + 1;
    Transaction recorded = members.size() == 1 ? members.get(0)
        : GroupCommit.merge(groupUuid, baseVersionOf(), members, extraProperties);
    TableState next = members.size() == 1 && sequential ? virtualLatest
        : buildOne(recorded, contexts.of(version, recorded));
    if (members.size() > 1 && sequential && !sameTable(next, virtualLatest)) {
      throw new IllegalStateException("Group commit " + groupUuid + " of " + members.size() + " "
          + OperationKind.of(recorded).lanceName() + " transactions would not give the table its members give one by"
          + " one");
    }
    Map<String, byte[]> referenced = new LinkedHashMap<>();
    for (DataFragment fragment : pendingFiles.isEmpty() ? List.<DataFragment>of()
        : next.manifest().getFragmentsList()) {
      if (fragment.hasDeletionFile() && !fragment.getDeletionFile().hasBaseId()) {
        String path = DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile());
        byte[] bytes = pendingFiles.get(path);
        if (bytes != null) {
          referenced.put(path, bytes);
        }
      }
    }
    return new Built(recorded, next, referenced, List.copyOf(members));
  }

  private TableState buildOne(Transaction recorded, CommitContext ctx) {
    if (OperationKind.of(recorded) != OperationKind.RESTORE) {
      return ManifestBuilder.build(base, recorded, ctx);
    }
    long restoredVersion = recorded.getRestore().getVersion();
    if (base == null || restoredVersion < 1 || restoredVersion > base.version()) {
      throw new InvalidTransactionException("Cannot restore version " + restoredVersion + ": the table's versions are"
          + " 1.." + baseVersionOf());
    }
    TableState restored = history.stateAt(restoredVersion).orElseThrow(() ->
        new InvalidTransactionException("Version " + restoredVersion + " no longer exists; it cannot be restored"));
    return ManifestBuilder.buildRestore(base, restored, recorded, ctx);
  }

  /** Same fragments and indices (what a reader sees); version, time and file names may differ. */
  private static boolean sameTable(TableState a, TableState b) {
    return a.manifest().getFragmentsList().equals(b.manifest().getFragmentsList())
        && a.indices().equals(b.indices())
        && a.manifest().getFieldsList().equals(b.manifest().getFieldsList());
  }

  private TableState stateAt(long version) {
    if (base != null && version == base.version()) {
      return base;
    }
    return statesAt.computeIfAbsent(version, v -> history.stateAt(v).orElseThrow(() -> new InvalidTransactionException(
        "Version " + v + " (the transaction's read version) no longer exists")));
  }

  /** A deletion vector an earlier member's rebase wrote (not stored yet) or the stored one. */
  private RoaringBitmap deletionVector(DataFragment fragment) {
    if (!fragment.getDeletionFile().hasBaseId()) {
      byte[] pending = pendingFiles.get(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile()));
      if (pending != null) {
        return DeletionVectors.read(fragment, pending);
      }
    }
    return history.deletionVector(fragment);
  }
}
