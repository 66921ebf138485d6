package dev.lancecommit.rules.conflict;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import org.roaringbitmap.RoaringBitmap;

/**
 * Index names, fragment-reuse index presence and index fragment bitmaps: conditions f1, i1, i3, i4.
 *
 * <p>A fragment-reuse index (FRI) that accompanies a Rewrite lives only in Lance's memory; the Rewrite protobuf has
 * no field for it. So a Rewrite never carries an FRI here, and the FRI branches of i1, i3 and r1 reduce to the
 * "neither side has one" case; an FRI is visible only as a CreateIndex new index named {@value #FRAG_REUSE}.
 */
final class IndexRules {
  static final String FRAG_REUSE = "__lance_frag_reuse";
  static final String MEM_WAL = "__lance_mem_wal";

  private IndexRules() {}

  static boolean hasFragReuseIndex(List<IndexMetadata> indices) {
    return indices.stream().anyMatch(i -> FRAG_REUSE.equals(i.getName()));
  }

  static boolean hasMemWalIndex(List<IndexMetadata> indices) {
    return indices.stream().anyMatch(i -> MEM_WAL.equals(i.getName()));
  }

  /**
   * The fragment ids an index covers; empty when unknown (empty bytes are Lance's None). Bytes that are not a
   * portable Roaring bitmap also count as unknown, which every rule treats conservatively.
   */
  static Optional<RoaringBitmap> fragmentBitmap(IndexMetadata index) {
    ByteString bytes = index.getFragmentBitmap();
    if (bytes.isEmpty()) {
      return Optional.empty();
    }
    RoaringBitmap bitmap = new RoaringBitmap();
    try {
      bitmap.deserialize(ByteBuffer.wrap(bytes.toByteArray()));
    } catch (IOException | RuntimeException e) {
      return Optional.empty();
    }
    return Optional.of(bitmap);
  }

  private static SortedSet<String> names(List<IndexMetadata> indices) {
    TreeSet<String> names = new TreeSet<>();
    indices.forEach(i -> names.add(i.getName()));
    return names;
  }

  /**
   * f1 (CreateIndex vs CreateIndex) as of 2026: R when both add a fragment-reuse index, both add a MemWAL index,
   * both add a regular index of the same name, one appends a segment to a name the other dropped, or both replaced
   * the same source segment (uuid) while one of them publishes under its name; else C.
   */
  static Verdict f1(Transaction ours, Transaction theirs, RebaseInputs context) {
    List<IndexMetadata> ourNew = ours.getCreateIndex().getNewIndicesList();
    List<IndexMetadata> ourRemoved = ours.getCreateIndex().getRemovedIndicesList();
    List<IndexMetadata> theirNew = theirs.getCreateIndex().getNewIndicesList();
    List<IndexMetadata> theirRemoved = theirs.getCreateIndex().getRemovedIndicesList();
    if (hasFragReuseIndex(ourNew) && hasFragReuseIndex(theirNew)) {
      return Verdict.retryable("both publish a new fragment-reuse index");
    }
    if (hasMemWalIndex(ourNew) && hasMemWalIndex(theirNew)) {
      return Verdict.retryable("both publish a new MemWAL index");
    }
    TreeSet<String> sameName = new TreeSet<>();
    for (IndexMetadata index : ourNew) {
      String name = index.getName();
      if (!FRAG_REUSE.equals(name) && !MEM_WAL.equals(name) && names(theirNew).contains(name)) {
        sameName.add(name);
      }
    }
    if (!sameName.isEmpty()) {
      return Verdict.retryable("both create indices named " + sameName);
    }
    Optional<String> appendDrop = appendVsDrop(ourNew, ourRemoved, theirRemoved)
        .or(() -> appendVsDrop(theirNew, theirRemoved, ourRemoved));
    if (appendDrop.isPresent()) {
      return Verdict.retryable("one side adds a segment to index '" + appendDrop.get() + "' that the other dropped");
    }
    for (IndexMetadata removed : ourRemoved) {
      for (IndexMetadata committedRemoved : theirRemoved) {
        if (!removed.getUuid().equals(committedRemoved.getUuid())) {
          continue;
        }
        TreeSet<String> affected = new TreeSet<>(List.of(removed.getName(), committedRemoved.getName()));
        boolean republished = ourNew.stream().anyMatch(i -> affected.contains(i.getName()))
            || theirNew.stream().anyMatch(i -> affected.contains(i.getName()));
        if (republished) {
          return Verdict.retryable("both replaced the same source segment of index " + affected);
        }
      }
    }
    return Verdict.compatible("the index changes touch different names and segments");
  }

  /** A new index whose name this side did not remove but the other side did: an append onto a dropped index. */
  private static Optional<String> appendVsDrop(
      List<IndexMetadata> sideNew, List<IndexMetadata> sideRemoved, List<IndexMetadata> otherRemoved) {
    SortedSet<String> removedHere = names(sideRemoved);
    SortedSet<String> removedThere = names(otherRemoved);
    return sideNew.stream()
        .map(IndexMetadata::getName)
        .filter(name -> !removedHere.contains(name) && removedThere.contains(name))
        .sorted()
        .findFirst();
  }

  /**
   * i1 (CreateIndex vs Rewrite): R when one of our new indices has no fragment bitmap, or the rewrite moved rows
   * out of a fragment our new indices cover; else C.
   */
  static Verdict i1(Transaction ours, Transaction theirs, RebaseInputs context) {
    return rewriteVsNewIndices(
        FragmentOverlap.rewriteOldFragmentIds(theirs.getRewrite()), ours.getCreateIndex().getNewIndicesList(),
        "our new index", "the committed rewrite moved rows of fragments");
  }

  /**
   * i3 (Rewrite vs CreateIndex): when the committed CreateIndex publishes a fragment-reuse index, X unless it has
   * exactly one new and one removed index (then C). Otherwise R when one of its new indices has no fragment bitmap
   * or covers a fragment we rewrite; else C.
   */
  static Verdict i3(Transaction ours, Transaction theirs, RebaseInputs context) {
    Transaction.CreateIndex created = theirs.getCreateIndex();
    if (hasFragReuseIndex(created.getNewIndicesList())) {
      if (created.getNewIndicesCount() != 1 || created.getRemovedIndicesCount() != 1) {
        return Verdict.incompatible("the committed CreateIndex mixes a fragment-reuse index with other index changes");
      }
      return Verdict.compatible("the committed CreateIndex only replaced the fragment-reuse index");
    }
    return rewriteVsNewIndices(
        FragmentOverlap.rewriteOldFragmentIds(ours.getRewrite()), created.getNewIndicesList(),
        "the committed new index", "ours rewrites fragments");
  }

  private static Verdict rewriteVsNewIndices(
      SortedSet<Long> rewritten, List<IndexMetadata> newIndices, String indexWho, String rewriteWhat) {
    RoaringBitmap covered = new RoaringBitmap();
    for (IndexMetadata index : newIndices) {
      Optional<RoaringBitmap> bitmap = fragmentBitmap(index);
      if (bitmap.isEmpty()) {
        return Verdict.retryable(indexWho + " '" + index.getName() + "' has no fragment bitmap, so a rewrite may"
            + " have moved rows it covers");
      }
      covered.or(bitmap.get());
    }
    TreeSet<Long> moved = new TreeSet<>();
    for (long id : rewritten) {
      if (id >= 0 && id <= 0xFFFF_FFFFL && covered.contains((int) id)) {
        moved.add(id);
      }
    }
    return moved.isEmpty()
        ? Verdict.compatible("the rewrite touches no fragment the new indices cover")
        : Verdict.retryable(rewriteWhat + " " + moved + " that the new indices cover");
  }

  /**
   * i4 [2026] (CreateIndex vs Update): Lance 2026 prunes the updated fragments from our new indices' bitmaps when the
   * update rewrote an indexed field. This build does not rebase indices, so that case is R: some new index covers a
   * field in the Update's fields_modified and (its bitmap is unknown or contains an updated fragment). Else C.
   */
  static Verdict i4(Transaction ours, Transaction theirs, RebaseInputs context) {
    Transaction.Update update = theirs.getUpdate();
    TreeSet<Long> updated = new TreeSet<>();
    update.getUpdatedFragmentsList().forEach(f -> updated.add(f.getId()));
    if (updated.isEmpty()) {
      return Verdict.compatible("the committed Update rewrote no existing fragment in place");
    }
    TreeSet<Integer> modified = new TreeSet<>(update.getFieldsModifiedList());
    for (IndexMetadata index : ours.getCreateIndex().getNewIndicesList()) {
      TreeSet<Integer> fields = new TreeSet<>(index.getFieldsList());
      fields.retainAll(modified);
      if (fields.isEmpty()) {
        continue;
      }
      Optional<RoaringBitmap> bitmap = fragmentBitmap(index);
      TreeSet<Long> stale = new TreeSet<>();
      for (long id : updated) {
        if (bitmap.isEmpty() || (id >= 0 && id <= 0xFFFF_FFFFL && bitmap.get().contains((int) id))) {
          stale.add(id);
        }
      }
      if (!stale.isEmpty()) {
        return Verdict.retryable("the committed Update rewrote indexed fields " + fields + " in fragments " + stale
            + " covered by our new index '" + index.getName() + "'");
      }
    }
    return Verdict.compatible("the committed Update changed no field our new indices cover in fragments they cover");
  }
}
