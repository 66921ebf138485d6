package dev.lancecommit.rules.rebase;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.CorruptDeletionFileException;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.FragmentsById;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.RebaseInputs;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.function.Function;
import java.util.function.LongSupplier;
import org.roaringbitmap.IntIterator;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.LongIterator;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Rebases a Delete or Update onto the latest version after the conflict check answered
 * {@link ConflictOutcome.Kind#REBASE} (Lance's {@code TransactionRebase::finish} for Delete/Update,
 * lance-format.md section 5.2): for each fragment named by the outcome, the deletion vector of the latest version is
 * merged with our affected rows. Pure: the caller reads the current deletion vectors (through the function it
 * passes) and writes the files of the returned {@link RebasePlan}.
 *
 * <p>Per rebased fragment F (ours updates it; the committed versions changed its deletion file, not its data files):
 *
 * <ol>
 *   <li>current = the deletion vector of F in the latest version (empty when it has no deletion file);
 *   <li>current AND our affected rows of F not empty: both deleted or moved the same rows, RETRYABLE
 *       ({@link CommitConflictException}, "both modified rows at addresses ...");
 *   <li>merged = current OR our affected rows of F; merged covering every physical row of F: F moves from our
 *       updated fragments to our deleted (Delete) / removed (Update) fragment ids; else F gets a new deletion file
 *       holding merged, with {@code read_version} = the latest version and a fresh random id.
 * </ol>
 *
 * A fragment named by the outcome that ours removes whole only gets step 2. An Update in REWRITE_COLUMNS mode
 * changes rows in place (Lance gives it no affected rows), so it is not rebased: RETRYABLE. The transaction's {@code read_version}
 * becomes the latest version in every case. Like Lance's rebase the new file is always a bitmap ({@code .bin});
 * Lance reads both formats.
 *
 * <p>Safety checks Lance does not make (each refuses with a clear error and returns nothing to write): affected rows
 * outside a fragment's physical rows, or disagreeing with the number of rows our own deletion file added (affected
 * rows that miss our deletions would silently undo them), are an {@link InvalidTransactionException}; a current
 * deletion vector naming rows beyond the fragment is a {@link CorruptDeletionFileException}.
 */
public final class DeletionRebase {
  private static final SecureRandom RANDOM = new SecureRandom();
  /** How many conflicting row addresses an error message names (Lance names 5). */
  private static final int SAMPLE = 5;

  private DeletionRebase() {}

  /**
   * Rebases {@code ours} onto {@code latest} with random deletion file ids.
   *
   * @param ours our transaction, as the writer sent it
   * @param outcome the conflict check of ours against every version after its read version up to {@code latest}
   *     ({@code ConflictResolver.checkAll}); REBASE, or COMPATIBLE (then only {@code read_version} moves)
   * @param inputs the rebase inputs given to the conflict check: our affected rows (row addresses
   *     {@code fragment_id << 32 | offset}) and the fragments as of our read version
   * @param latest the latest version, the one the outcome was checked up to
   * @param currentDeletions reads the deletion vector of a fragment of {@code latest}; called once for each fragment
   *     to rebase that has a deletion file, never for one without (the caller reads
   *     {@link DeletionVectors#relativePath} under the table root, or under the base path of
   *     {@code deletion_file.base_id}, and decodes it with {@link DeletionVectors#read(DataFragment, byte[])}); its
   *     exceptions propagate unchanged
   * @return the rebased transaction and the deletion files to write before committing it
   * @throws CommitConflictException (retryable) when both sides deleted or moved a row, when no affected rows were
   *     supplied, or when a fragment to rebase no longer exists in {@code latest}
   * @throws InvalidTransactionException when our affected rows contradict our transaction
   * @throws CorruptDeletionFileException when a current deletion vector names rows its fragment does not have
   * @throws IllegalArgumentException when the arguments do not belong together (another outcome kind, an outcome
   *     not checked up to {@code latest}, a REBASE of an operation other than Delete/Update, a rebase fragment ours
   *     does not modify)
   */
  public static RebasePlan rebase(Transaction ours, ConflictOutcome outcome, RebaseInputs inputs, TableState latest,
      Function<DataFragment, RoaringBitmap> currentDeletions) {
    return rebase(ours, outcome, inputs, latest, currentDeletions, (LongSupplier) RANDOM::nextLong);
  }

  /** {@link #rebase(Transaction, ConflictOutcome, RebaseInputs, TableState, Function)} with the given id source. */
  public static RebasePlan rebase(Transaction ours, ConflictOutcome outcome, RebaseInputs inputs, TableState latest,
      Function<DataFragment, RoaringBitmap> currentDeletions, LongSupplier deletionFileIds) {
    Objects.requireNonNull(deletionFileIds, "deletionFileIds");
    return rebase(ours, outcome, inputs, latest, currentDeletions, (fragmentId, rows) -> {
      long id;
      do {
        id = deletionFileIds.getAsLong();
      } while (id == 0);
      return id;
    });
  }

  /**
   * {@link #rebase(Transaction, ConflictOutcome, RebaseInputs, TableState, Function)} naming each new deletion file
   * with {@code deletionFileIds} (e.g. {@link DeletionFileIds#contentAddressed}, so that rebasing the same
   * transaction onto the same version twice writes the same files under the same names).
   */
  public static RebasePlan rebase(Transaction ours, ConflictOutcome outcome, RebaseInputs inputs, TableState latest,
      Function<DataFragment, RoaringBitmap> currentDeletions, DeletionFileIds deletionFileIds) {
    Objects.requireNonNull(ours, "ours");
    Objects.requireNonNull(outcome, "outcome");
    Objects.requireNonNull(inputs, "inputs");
    Objects.requireNonNull(latest, "latest");
    Objects.requireNonNull(currentDeletions, "currentDeletions");
    Objects.requireNonNull(deletionFileIds, "deletionFileIds");
    long latestVersion = latest.version();
    if (latestVersion < ours.getReadVersion()) {
      throw new IllegalArgumentException("Latest version " + latestVersion + " is older than read version "
          + ours.getReadVersion() + " of transaction " + ours.getUuid());
    }
    if (outcome.theirVersion() != latestVersion) {
      throw new IllegalArgumentException("The conflict check answered up to version " + outcome.theirVersion()
          + " but the latest version is " + latestVersion + "; check every version before rebasing onto it");
    }
    return switch (outcome.kind()) {
      case COMPATIBLE -> new RebasePlan(ours.toBuilder().setReadVersion(latestVersion).build(), List.of(),
          new TreeSet<>());
      case REBASE -> new Run(ours, outcome, inputs, latest, currentDeletions, deletionFileIds).plan();
      case RETRYABLE, INCOMPATIBLE, ALREADY_COMMITTED -> throw new IllegalArgumentException(
          "A " + outcome.kind() + " outcome cannot be rebased (rule " + outcome.rule() + "): " + outcome.reason());
    };
  }

  /** One rebase: the inputs checked and indexed. */
  private static final class Run {
    private final Transaction ours;
    private final OperationKind kind;
    private final ConflictOutcome outcome;
    private final RebaseInputs inputs;
    private final TableState latest;
    private final Function<DataFragment, RoaringBitmap> currentDeletions;
    private final DeletionFileIds ids;
    private final Map<Long, DataFragment> ourUpdated = new LinkedHashMap<>();
    private final TreeSet<Long> ourRemoved = new TreeSet<>();
    private final FragmentsById latestFragments;

    Run(Transaction ours, ConflictOutcome outcome, RebaseInputs inputs, TableState latest,
        Function<DataFragment, RoaringBitmap> currentDeletions, DeletionFileIds ids) {
      this.ours = ours;
      this.kind = OperationKind.of(ours);
      this.outcome = outcome;
      this.inputs = inputs;
      this.latest = latest;
      this.currentDeletions = currentDeletions;
      this.ids = ids;
      List<DataFragment> updated;
      List<Long> removed;
      switch (kind) {
        case DELETE -> {
          updated = ours.getDelete().getUpdatedFragmentsList();
          removed = ours.getDelete().getDeletedFragmentIdsList();
        }
        case UPDATE -> {
          updated = ours.getUpdate().getUpdatedFragmentsList();
          removed = ours.getUpdate().getRemovedFragmentIdsList();
        }
        default -> throw new IllegalArgumentException("Only a Delete or an Update is rebased by merging deletion"
            + " vectors, not a " + kind.lanceName() + " (transaction " + ours.getUuid() + ")");
      }
      for (DataFragment fragment : updated) {
        if (ourUpdated.put(fragment.getId(), fragment) != null) {
          throw new InvalidTransactionException(kind.lanceName() + " " + ours.getUuid() + " updates fragment "
              + fragment.getId() + " twice");
        }
      }
      ourRemoved.addAll(removed);
      latestFragments = FragmentsById.of(latest);
    }

    RebasePlan plan() {
      if (kind == OperationKind.UPDATE
          && ours.getUpdate().getUpdateMode() == Transaction.UpdateMode.REWRITE_COLUMNS) {
        // Lance never supplies affected rows for a column rewrite: its rows change in place, they are not deleted.
        throw retryable("an Update that rewrites columns in place cannot be rebased by merging deletion vectors");
      }
      Roaring64NavigableMap affected = inputs.affectedRows().orElseThrow(() -> retryable(
          "no affected rows were supplied, so the deletion vectors of fragments " + outcome.rebaseFragments()
              + " cannot be merged"));
      Map<Long, RoaringBitmap> affectedByFragment = byFragment(affected);

      Map<Long, RoaringBitmap> current = new TreeMap<>();
      for (long fragmentId : outcome.rebaseFragments()) {
        if (!ourUpdated.containsKey(fragmentId) && !ourRemoved.contains(fragmentId)) {
          throw new IllegalArgumentException("The outcome names fragment " + fragmentId + " to rebase, which "
              + kind.lanceName() + " " + ours.getUuid() + " does not modify");
        }
        DataFragment now = latestFragments.get(fragmentId);
        if (now == null) {
          throw retryable("fragment " + fragmentId + " no longer exists in version " + latest.version());
        }
        current.put(fragmentId, now.hasDeletionFile()
            ? Objects.requireNonNull(currentDeletions.apply(now), "deletion vector of fragment " + fragmentId)
            : new RoaringBitmap());
      }

      List<Long> conflicting = new ArrayList<>();
      long conflictCount = 0;
      for (Map.Entry<Long, RoaringBitmap> entry : current.entrySet()) {
        RoaringBitmap both = RoaringBitmap.and(entry.getValue(), affectedOf(affectedByFragment, entry.getKey()));
        conflictCount += both.getLongCardinality();
        IntIterator offsets = both.getIntIterator();
        while (offsets.hasNext() && conflicting.size() < SAMPLE) {
          conflicting.add(entry.getKey() << 32 | Integer.toUnsignedLong(offsets.next()));
        }
      }
      if (conflictCount > 0) {
        throw retryable("both modified rows at addresses " + conflicting + (conflictCount > SAMPLE
            ? " (" + conflictCount + " rows in all)" : "") + " of fragments " + current.keySet());
      }

      List<NewDeletionFile> files = new ArrayList<>();
      TreeSet<Long> nowEmpty = new TreeSet<>();
      Map<Long, DataFragment> rebased = new LinkedHashMap<>();
      for (Map.Entry<Long, RoaringBitmap> entry : current.entrySet()) {
        long fragmentId = entry.getKey();
        DataFragment mine = ourUpdated.get(fragmentId);
        if (mine == null) {
          continue; // removed whole by ours: nothing to merge
        }
        RoaringBitmap ourRows = affectedOf(affectedByFragment, fragmentId);
        long physicalRows = physicalRows(latestFragments.get(fragmentId), mine);
        checkAgainstOurDeletionFile(mine, ourRows);
        checkWithin(physicalRows, fragmentId, ourRows, entry.getValue());
        RoaringBitmap merged = RoaringBitmap.or(entry.getValue(), ourRows);
        if (physicalRows > 0 && merged.getLongCardinality() == physicalRows) {
          nowEmpty.add(fragmentId);
        } else if (merged.isEmpty()) {
          rebased.put(fragmentId, mine.toBuilder().clearDeletionFile().build());
        } else {
          NewDeletionFile file = DeletionVectors.encode(
              fragmentId, latest.version(), nextId(fragmentId, merged), DeletionFileType.BITMAP, merged);
          files.add(file);
          rebased.put(fragmentId, mine.toBuilder().setDeletionFile(file.meta()).build());
        }
      }
      return new RebasePlan(rewrite(rebased, nowEmpty), files, nowEmpty);
    }

    private Transaction rewrite(Map<Long, DataFragment> rebased, SortedSet<Long> nowEmpty) {
      List<DataFragment> updated = new ArrayList<>();
      for (DataFragment fragment : ourUpdated.values()) {
        if (!nowEmpty.contains(fragment.getId())) {
          updated.add(rebased.getOrDefault(fragment.getId(), fragment));
        }
      }
      List<Long> added = nowEmpty.stream().filter(id -> !ourRemoved.contains(id)).toList();
      Transaction.Builder txn = ours.toBuilder().setReadVersion(latest.version());
      if (kind == OperationKind.DELETE) {
        txn.setDelete(ours.getDelete().toBuilder().clearUpdatedFragments().addAllUpdatedFragments(updated)
            .addAllDeletedFragmentIds(added));
      } else {
        txn.setUpdate(ours.getUpdate().toBuilder().clearUpdatedFragments().addAllUpdatedFragments(updated)
            .addAllRemovedFragmentIds(added));
      }
      return txn.build();
    }

    /**
     * Our deletion file was computed at our read version: it holds the deletions of the read version plus exactly
     * our affected rows. When both counts are known they must agree, or merging would drop some of our deletions.
     */
    private void checkAgainstOurDeletionFile(DataFragment mine, RoaringBitmap ourRows) {
      Optional<DataFragment> initial = inputs.initialFragments().map(m -> m.get(mine.getId()));
      if (initial.isEmpty() || !mine.hasDeletionFile() || mine.getDeletionFile().getNumDeletedRows() == 0) {
        return;
      }
      DataFragment before = initial.get();
      long deletedBefore = before.hasDeletionFile() ? before.getDeletionFile().getNumDeletedRows() : 0;
      if (before.hasDeletionFile() && deletedBefore == 0) {
        return; // unknown count at the read version
      }
      long deletedAfter = mine.getDeletionFile().getNumDeletedRows();
      if (deletedAfter != deletedBefore + ourRows.getLongCardinality()) {
        throw new InvalidTransactionException("The affected rows of " + kind.lanceName() + " " + ours.getUuid()
            + " name " + ourRows.getLongCardinality() + " rows of fragment " + mine.getId() + ", but its deletion"
            + " file takes the fragment from " + deletedBefore + " to " + deletedAfter + " deleted rows; affected"
            + " rows must be exactly the rows the transaction deleted or moved");
      }
    }

    private void checkWithin(long physicalRows, long fragmentId, RoaringBitmap ourRows, RoaringBitmap now) {
      if (physicalRows <= 0) {
        return; // unknown: Lance does not check either
      }
      if (!ourRows.isEmpty() && Integer.toUnsignedLong(ourRows.last()) >= physicalRows) {
        throw new InvalidTransactionException("The affected rows of " + kind.lanceName() + " " + ours.getUuid()
            + " name offset " + Integer.toUnsignedString(ourRows.last()) + " of fragment " + fragmentId
            + ", which has " + physicalRows + " rows");
      }
      if (!now.isEmpty() && Integer.toUnsignedLong(now.last()) >= physicalRows) {
        throw new CorruptDeletionFileException("The deletion file of fragment " + fragmentId + " in version "
            + latest.version() + " deletes offset " + Integer.toUnsignedString(now.last()) + ", but the fragment has "
            + physicalRows + " rows");
      }
    }

    private static long physicalRows(DataFragment now, DataFragment mine) {
      return now.getPhysicalRows() != 0 ? now.getPhysicalRows() : mine.getPhysicalRows();
    }

    private long nextId(long fragmentId, RoaringBitmap rows) {
      long id = ids.idFor(fragmentId, rows);
      if (id == 0) {
        throw new IllegalStateException("Deletion file ids are never 0 (fragment " + fragmentId + ")");
      }
      return id;
    }

    private CommitConflictException retryable(String detail) {
      String theirs = outcome.theirOperation() == null ? "unknown" : outcome.theirOperation().lanceName();
      return new CommitConflictException(true, outcome.theirVersion(), theirs, outcome.rule(),
          kind.lanceName() + " " + ours.getUuid() + " at read version " + ours.getReadVersion()
              + " was preempted by the transactions committed up to version " + outcome.theirVersion() + " (newest: "
              + theirs + "): " + detail + "; rebuild the transaction on version " + outcome.theirVersion()
              + " or later and retry");
    }
  }

  private static RoaringBitmap affectedOf(Map<Long, RoaringBitmap> byFragment, long fragmentId) {
    RoaringBitmap rows = byFragment.get(fragmentId);
    return rows == null ? new RoaringBitmap() : rows;
  }

  /** Row addresses grouped by fragment id (high 32 bits) into offsets (low 32 bits). */
  static Map<Long, RoaringBitmap> byFragment(Roaring64NavigableMap addresses) {
    Map<Long, RoaringBitmap> out = new TreeMap<>();
    LongIterator it = addresses.getLongIterator();
    while (it.hasNext()) {
      long address = it.next();
      out.computeIfAbsent(address >>> 32, id -> new RoaringBitmap()).add((int) address);
    }
    return out;
  }
}
