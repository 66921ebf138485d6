package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.MemWalFormat;
import dev.lancecommit.rules.MemWalFormat.Generation;
import dev.lancecommit.rules.MemWalFormat.Reading;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;
import java.util.function.Function;

/**
 * 2026 MemWAL conflicts, keyed on shard + generation of compacted SSTables (w1, w2, w3), and the reading of each
 * side's MemWAL generation that the "m/w" cells dispatch on.
 *
 * <p>A side's MemWAL entries are Update field 5, UpdateMemWalState (all fields), or the details of a
 * {@code __lance_mem_wal} index a CreateIndex publishes. When a side's bytes fit both generations (or it has no
 * entries) every consistent generation is tried: the answer stands when they agree, and is R when they do not (or
 * when the two sides cannot be the same generation, or a side is unreadable): re-running on the newer version is
 * always safe, and the manifest builder then decides with the table's MemWAL index or refuses.
 */
final class MemWalShards {
  private MemWalShards() {}

  /** A transaction's MemWAL reading, by operation; operations without MemWAL entries read EMPTY. */
  static Reading reading(Transaction txn) {
    return switch (OperationKind.of(txn)) {
      case UPDATE -> MemWalFormat.update(txn.getUpdate());
      case UPDATE_MEM_WAL_STATE -> MemWalFormat.state(txn.getUpdateMemWalState());
      case CREATE_INDEX -> createdMemWalIndex(txn).map(MemWalFormat::indexDetails)
          .orElse(MemWalFormat.entries(List.of()));
      default -> MemWalFormat.entries(List.of());
    };
  }

  private static java.util.Optional<IndexMetadata> createdMemWalIndex(Transaction txn) {
    return txn.getCreateIndex().getNewIndicesList().stream()
        .filter(i -> IndexRules.MEM_WAL.equals(i.getName())).findFirst();
  }

  /**
   * Evaluates {@code rule} under every generation both sides can be in. The verdict when all agree; R when they
   * disagree, when no generation fits both sides, or when a side is unreadable.
   */
  static Verdict byGeneration(Transaction ours, Transaction theirs, Function<Generation, Verdict> rule) {
    Reading mine = reading(ours);
    Reading committed = reading(theirs);
    if (mine.shape() == MemWalFormat.Shape.NEITHER) {
      return Verdict.retryable("our MemWAL entries cannot be read (" + mine.problem() + "); re-run on the new"
          + " version");
    }
    if (committed.shape() == MemWalFormat.Shape.NEITHER) {
      return Verdict.retryable("the committed MemWAL entries cannot be read (" + committed.problem() + "); re-run"
          + " on the new version");
    }
    Set<Generation> both = EnumSet.copyOf(mine.generations());
    both.retainAll(committed.generations());
    if (both.isEmpty()) {
      return Verdict.retryable("ours is " + only(mine) + " MemWAL and the committed one " + only(committed)
          + ": the two cannot both apply to one table; re-run on the new version");
    }
    List<Verdict> verdicts = new ArrayList<>();
    List<Generation> generations = new ArrayList<>(both);
    for (Generation generation : generations) {
      verdicts.add(rule.apply(generation));
    }
    if (verdicts.stream().allMatch(v -> v.kind() == verdicts.get(0).kind())) {
      return verdicts.get(0);
    }
    List<String> each = new ArrayList<>();
    for (int i = 0; i < generations.size(); i++) {
      each.add("read as " + generations.get(i) + ": " + letter(verdicts.get(i)) + " (" + verdicts.get(i).detail()
          + ")");
    }
    return Verdict.retryable("the MemWAL entries fit both generations and the generations disagree, "
        + String.join("; ", each) + "; re-run on the new version");
  }

  private static String only(Reading reading) {
    return reading.generations().iterator().next().toString();
  }

  private static String letter(Verdict verdict) {
    return switch (verdict.kind()) {
      case COMPATIBLE -> "C";
      case RETRYABLE -> "R";
      case INCOMPATIBLE -> "X";
      default -> verdict.kind().toString();
    };
  }

  /** The 2026 compacted SSTables of a side (empty when it has none). */
  private static List<CompactedSsTable> sstables(Transaction txn) {
    return reading(txn).sstables();
  }

  /**
   * w1, Lance 2026's {@code check_compacted_sstables_conflict}: for a shard both sides compact, X when the committed
   * generation is >= ours (that SSTable is already compacted or superseded), R when it is lower (re-run on the new
   * state); no shard in common -> C. Lance answers for the first common shard it meets; here any X wins over R (a
   * re-run would meet the X, or the builder's stale-generation refusal, anyway).
   */
  static Verdict w1(Transaction ours, Transaction theirs, RebaseInputs context) {
    return shards(sstables(theirs), sstables(ours));
  }

  static Verdict shards(List<CompactedSsTable> committed, List<CompactedSsTable> toCommit) {
    Verdict retry = null;
    for (CompactedSsTable mine : toCommit) {
      for (CompactedSsTable theirs : committed) {
        if (!mine.getShardId().getUuid().equals(theirs.getShardId().getUuid())) {
          continue;
        }
        String shard = "shard " + MemWalFormat.shardId(mine);
        if (theirs.getGeneration() >= mine.getGeneration()) {
          return Verdict.incompatible(shard + ": committed generation " + theirs.getGeneration()
              + " >= our generation " + mine.getGeneration() + ", so that SSTable is already compacted or"
              + " superseded");
        }
        if (retry == null) {
          retry = Verdict.retryable(shard + ": committed generation " + theirs.getGeneration()
              + " < our generation " + mine.getGeneration() + "; re-run on the new compaction state");
        }
      }
    }
    return retry != null ? retry : Verdict.compatible("no shard is compacted by both");
  }

  /**
   * w2 (CreateIndex vs UpdateMemWalState). X unless ours publishes a {@code __lance_mem_wal} index and the committed
   * UpdateMemWalState can be 2026: Lance 2026 then merges the committed compacted SSTables into our MemWAL index (a
   * rebase this build does not do), so R. Nov-2025 answers X.
   */
  static Verdict w2(Transaction ours, Transaction theirs, RebaseInputs context) {
    if (createdMemWalIndex(ours).isEmpty()) {
      return Verdict.incompatible("the committed MemWAL state update invalidates an index built without it");
    }
    Reading committed = MemWalFormat.state(theirs.getUpdateMemWalState());
    if (committed.shape() == MemWalFormat.Shape.NOV_2025) {
      return Verdict.incompatible("Nov-2025: a MemWAL index cannot be created over a committed MemWAL state update");
    }
    return Verdict.retryable("ours publishes the MemWAL index and the committed UpdateMemWalState "
        + describe(committed.sstables()) + "; Lance 2026 would merge that progress into our index, this build"
        + " asks for a re-run on the new version");
  }

  /**
   * w3 (UpdateMemWalState vs CreateIndex). C unless the committed CreateIndex publishes a 2026
   * {@code __lance_mem_wal} index and ours is 2026: then w1 between its compacted SSTables and ours. Nov-2025
   * answers C.
   */
  static Verdict w3(Transaction ours, Transaction theirs, RebaseInputs context) {
    if (createdMemWalIndex(theirs).isEmpty()) {
      return Verdict.compatible("the committed CreateIndex does not publish the MemWAL index");
    }
    return byGeneration(ours, theirs, generation -> generation == Generation.NOV_2025
        ? Verdict.compatible("Nov-2025: an index creation does not touch MemWAL state")
        : shards(sstables(theirs), sstables(ours)));
  }

  private static String describe(List<CompactedSsTable> sstables) {
    if (sstables.isEmpty()) {
      return "compacts no SSTable";
    }
    List<String> each = new ArrayList<>();
    sstables.forEach(s -> each.add(MemWalFormat.describe(s)));
    return "compacts " + String.join(", ", each);
  }
}
