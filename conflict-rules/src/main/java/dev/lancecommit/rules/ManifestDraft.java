package dev.lancecommit.rules;

import dev.lancecommit.format.FragmentEdits;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.HashSet;
import java.util.List;
import java.util.Set;

/**
 * The next manifest while a transaction is being applied: the manifest builder (schema, config, bases, ...), the
 * fragment and index lists, and the two id counters (fragment ids and stable row ids).
 */
final class ManifestDraft {
  static final long MAX_FRAGMENT_ID = 0xFFFF_FFFFL;

  private final TableState current;
  private final Transaction txn;
  private final CommitContext ctx;
  private final Manifest.Builder manifest;
  private final boolean stableRowIds;
  private List<DataFragment> fragments;
  /** The list behind {@link #fragments} when the draft owns it ({@link #adoptFragments}); null otherwise. */
  private ArrayList<DataFragment> ownedFragments;
  /** How {@link #fragments} were made from the current version's, when known; null otherwise. */
  private FragmentEdits edits;
  private List<IndexMetadata> indices;
  private long nextFragmentId;
  private long nextRowId;
  private long reservedFragments;

  ManifestDraft(TableState current, Transaction txn, CommitContext ctx, Manifest.Builder manifest,
      boolean stableRowIds, long nextRowId) {
    this.current = current;
    this.txn = txn;
    this.ctx = ctx;
    this.manifest = manifest;
    this.stableRowIds = stableRowIds;
    this.nextRowId = nextRowId;
    this.fragments = current == null ? List.of() : current.manifest().getFragmentsList();
    this.indices = current == null ? List.of() : current.indices();
    this.nextFragmentId = current == null ? 0 : highWaterMark(current.manifest()) + 1;
  }

  /**
   * The stored max_fragment_id, or the largest fragment id when it was never stored; -1 when the table never had a
   * fragment.
   */
  static long highWaterMark(Manifest manifest) {
    if (manifest.hasMaxFragmentId()) {
      return Integer.toUnsignedLong(manifest.getMaxFragmentId());
    }
    long max = -1;
    for (DataFragment fragment : manifest.getFragmentsList()) {
      max = Math.max(max, fragment.getId());
    }
    return max;
  }

  boolean creating() {
    return current == null;
  }

  /** The version the transaction applies to; only call when not creating. */
  TableState current() {
    return current;
  }

  /** The manifest the transaction applies to; only call when not creating. */
  Manifest previous() {
    return current.manifest();
  }

  Transaction txn() {
    return txn;
  }

  CommitContext ctx() {
    return ctx;
  }

  Manifest.Builder manifest() {
    return manifest;
  }

  List<DataFragment> fragments() {
    return fragments;
  }

  /** True when {@link #fragments} are still the current version's and those are in strictly ascending id order. */
  boolean fragmentsSortedById() {
    return current != null && fragments == current.manifest().getFragmentsList() && current.fragmentsSortedById();
  }

  void setFragments(List<DataFragment> fragments) {
    adoptFragments(copyWithRoom(fragments, 0));
  }

  /**
   * Makes {@code fragments}, a list the caller made for this and no longer touches, the draft's fragments without
   * copying it: a version copies its table's list of fragment references only where it must (a draft list, the
   * manifest's), however many fragments the table has.
   */
  void adoptFragments(ArrayList<DataFragment> fragments) {
    adoptFragments(fragments, null);
  }

  /**
   * {@link #adoptFragments(ArrayList)}, with how they were made from the current version's fragments ({@code edits}:
   * null when not known). Only an operation that edited the current version's list, sorted by id, knows that.
   */
  void adoptFragments(ArrayList<DataFragment> fragments, FragmentEdits edits) {
    this.ownedFragments = fragments;
    this.fragments = Collections.unmodifiableList(fragments);
    this.edits = edits;
  }

  /** How the draft's fragments were made from the current version's ({@link #adoptFragments}); null: not known. */
  FragmentEdits edits() {
    return edits;
  }

  /**
   * The fragments as a list the caller may change, for the last step of a build: the draft's own list where it has
   * one (then the draft's fragments are no longer read), a copy otherwise.
   */
  ArrayList<DataFragment> takeFragments() {
    ArrayList<DataFragment> owned = ownedFragments;
    if (owned == null) {
      return copyWithRoom(fragments, 0);
    }
    ownedFragments = null;
    fragments = List.of();
    return owned;
  }

  /**
   * A copy of {@code fragments} with room for {@code extra} more, made with bulk copies (a loop adding reference by
   * reference is slower on a large table) and without growing it afterwards.
   */
  static ArrayList<DataFragment> copyWithRoom(List<DataFragment> fragments, int extra) {
    ArrayList<DataFragment> copy = new ArrayList<>(fragments.size() + extra);
    copy.addAll(fragments);
    return copy;
  }

  List<IndexMetadata> indices() {
    return indices;
  }

  void setIndices(List<IndexMetadata> indices) {
    this.indices = List.copyOf(indices);
  }

  boolean stableRowIds() {
    return stableRowIds;
  }

  long nextRowId() {
    return nextRowId;
  }

  long reservedFragments() {
    return reservedFragments;
  }

  void reserveFragments(long count) {
    reservedFragments += count;
  }

  /** Overwrite starts fragment ids again at 0. */
  void restartFragmentIds() {
    nextFragmentId = 0;
  }

  /** Gives every fragment whose id is 0 the next free id; fragments with an id (e.g. reserved) keep it. */
  List<DataFragment> assignFragmentIds(List<DataFragment> newFragments) {
    List<DataFragment> result = new ArrayList<>(newFragments.size());
    for (DataFragment fragment : newFragments) {
      if (fragment.getId() == 0) {
        if (nextFragmentId > MAX_FRAGMENT_ID) {
          throw new InvalidTransactionException("Fragment ids are exhausted (next id " + nextFragmentId + ")");
        }
        fragment = fragment.toBuilder().setId(nextFragmentId++).build();
      }
      result.add(fragment);
    }
    return result;
  }

  /** Stable row ids for the fragments, advancing next_row_id; identity when the table has no stable row ids. */
  List<DataFragment> assignRowIds(List<DataFragment> newFragments) {
    if (!stableRowIds) {
      return newFragments;
    }
    RowIdAssigner.Assignment assignment = RowIdAssigner.assign(newFragments, nextRowId);
    nextRowId = assignment.nextRowId();
    return assignment.fragments();
  }

  /** New fragments of Append/Overwrite: ids, then row ids and created/updated-at = this version. */
  List<DataFragment> admitNewFragments(List<DataFragment> newFragments) {
    List<DataFragment> withIds = assignFragmentIds(newFragments);
    if (!stableRowIds) {
      return withIds;
    }
    List<DataFragment> stamped = new ArrayList<>();
    for (DataFragment fragment : assignRowIds(withIds)) {
      stamped.add(RowIdAssigner.stampVersions(fragment, ctx.version(), ctx.version()));
    }
    return stamped;
  }

  /** Ids of every field of the draft's schema, nested ones included. */
  Set<Integer> schemaFieldIds() {
    Set<Integer> ids = new HashSet<>();
    for (Field field : manifest.getFieldsList()) {
      ids.add(field.getId());
    }
    return ids;
  }

  Set<Long> fragmentIds() {
    Set<Long> ids = new HashSet<>();
    for (DataFragment fragment : fragments) {
      ids.add(fragment.getId());
    }
    return ids;
  }
}
