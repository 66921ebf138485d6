package dev.lancecommit.rules.conflict;

import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.MemWalIndexDetails.MemWal;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * MemWAL identities (region, generation) of Update.mem_wal_to_merge and UpdateMemWalState.added/updated: m1, m2, m3.
 *
 * <p>Those fields are raw bytes here because 2026 Lance re-used their numbers for compacted SSTables. An entry is
 * read as a Nov-2025 {@code MemWalIndexDetails.MemWal} only if it parses cleanly, has an id with a region and
 * carries no unknown fields; anything else is "not understood" and answered R (retry on the new version), never C.
 */
final class MemWalIds {
  private MemWalIds() {}

  /** A MemWAL id, or empty when the bytes are not a Nov-2025 MemWal. */
  static Optional<MemWalId> parse(ByteString bytes) {
    try {
      MemWal memWal = MemWal.parseFrom(bytes);
      if (!memWal.hasId() || memWal.getId().getRegion().isEmpty() || !memWal.getUnknownFields().asMap().isEmpty()
          || !memWal.getId().getUnknownFields().asMap().isEmpty()) {
        return Optional.empty();
      }
      return Optional.of(new MemWalId(memWal.getId().getRegion(), memWal.getId().getGeneration()));
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  record MemWalId(String region, long generation) {
    @Override
    public String toString() {
      return region + "/" + generation;
    }
  }

  /** The parsed ids, or empty when any entry is not understood. */
  private static Optional<List<MemWalId>> parseAll(List<ByteString> entries) {
    List<MemWalId> ids = new ArrayList<>();
    for (ByteString entry : entries) {
      Optional<MemWalId> id = parse(entry);
      if (id.isEmpty()) {
        return Optional.empty();
      }
      ids.add(id.get());
    }
    return Optional.of(ids);
  }

  /** A UpdateMemWalState whose unknown fields show the 2026 layout (field 2 became a bool). */
  private static boolean newLayout(Transaction.UpdateMemWalState state) {
    return !state.getUnknownFields().asMap().isEmpty();
  }

  /**
   * Lance's {@code check_update_mem_wal_state_not_modify_same_mem_wal}: when both lists are non-empty, more than one
   * MemWAL on either side is unsupported (X here; Lance raises an internal error) and the same id is X.
   */
  private static Optional<Verdict> sameMemWal(List<MemWalId> committed, List<MemWalId> toCommit) {
    if (committed.isEmpty() || toCommit.isEmpty()) {
      return Optional.empty();
    }
    if (committed.size() > 1 || toCommit.size() > 1) {
      return Optional.of(Verdict.incompatible("committing several MemWALs in one transaction is not supported"));
    }
    if (committed.get(0).equals(toCommit.get(0))) {
      return Optional.of(Verdict.incompatible("both change MemWAL " + committed.get(0)));
    }
    return Optional.empty();
  }

  private static Verdict notUnderstood(String side) {
    return Verdict.retryable(side + " MemWAL entries are not in the Nov-2025 layout (2026 compacted SSTables?);"
        + " they cannot be compared, so re-run on the new version");
  }

  /** m1 (Update vs UpdateMemWalState): X when their added or updated MemWALs include the one ours merges; else C. */
  static Verdict m1(Transaction ours, Transaction theirs, RebaseInputs context) {
    List<ByteString> ourEntries = ours.getUpdate().getMemWalToMergeOrCompactedSstablesList();
    if (ourEntries.isEmpty()) {
      return Verdict.compatible("ours merges no MemWAL");
    }
    Transaction.UpdateMemWalState state = theirs.getUpdateMemWalState();
    Optional<List<MemWalId>> merging = parseAll(ourEntries);
    Optional<List<MemWalId>> added = parseAll(state.getAddedOrCompactedSstablesList());
    Optional<List<MemWalId>> updated = parseAll(state.getUpdatedList());
    if (merging.isEmpty()) {
      return notUnderstood("our");
    }
    if (added.isEmpty() || updated.isEmpty() || newLayout(state)) {
      return notUnderstood("the committed");
    }
    return sameMemWal(added.get(), merging.get())
        .or(() -> sameMemWal(updated.get(), merging.get()))
        .orElseGet(() -> Verdict.compatible("the committed MemWAL changes do not touch the MemWAL ours merges"));
  }

  /** m2 (UpdateMemWalState vs Update): C when the committed Update merged a MemWAL, else X. */
  static Verdict m2(Transaction ours, Transaction theirs, RebaseInputs context) {
    return theirs.getUpdate().getMemWalToMergeOrCompactedSstablesCount() > 0
        ? Verdict.compatible("the committed Update merged a MemWAL")
        : Verdict.incompatible("the committed Update did not go through the MemWAL");
  }

  /**
   * m3 (UpdateMemWalState vs UpdateMemWalState): C when either side only trims (no added, no updated); else X when
   * an added/updated MemWAL of one side has the id of an added/updated MemWAL of the other; else C.
   */
  static Verdict m3(Transaction ours, Transaction theirs, RebaseInputs context) {
    Transaction.UpdateMemWalState mine = ours.getUpdateMemWalState();
    Transaction.UpdateMemWalState committed = theirs.getUpdateMemWalState();
    boolean mineTrims = mine.getAddedOrCompactedSstablesCount() == 0 && mine.getUpdatedCount() == 0
        && !newLayout(mine);
    boolean committedTrims = committed.getAddedOrCompactedSstablesCount() == 0 && committed.getUpdatedCount() == 0
        && !newLayout(committed);
    if (mineTrims || committedTrims) {
      return Verdict.compatible("one side only trims flushed MemWALs");
    }
    Optional<List<MemWalId>> myAdded = parseAll(mine.getAddedOrCompactedSstablesList());
    Optional<List<MemWalId>> myUpdated = parseAll(mine.getUpdatedList());
    Optional<List<MemWalId>> theirAdded = parseAll(committed.getAddedOrCompactedSstablesList());
    Optional<List<MemWalId>> theirUpdated = parseAll(committed.getUpdatedList());
    if (myAdded.isEmpty() || myUpdated.isEmpty() || newLayout(mine)) {
      return notUnderstood("our");
    }
    if (theirAdded.isEmpty() || theirUpdated.isEmpty() || newLayout(committed)) {
      return notUnderstood("the committed");
    }
    return sameMemWal(theirAdded.get(), myAdded.get())
        .or(() -> sameMemWal(theirAdded.get(), myUpdated.get()))
        .or(() -> sameMemWal(theirUpdated.get(), myAdded.get()))
        .or(() -> sameMemWal(theirUpdated.get(), myUpdated.get()))
        .orElseGet(() -> Verdict.compatible("the two MemWAL changes touch different MemWALs"));
  }
}
