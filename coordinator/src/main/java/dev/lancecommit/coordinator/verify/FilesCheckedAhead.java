package dev.lancecommit.coordinator.verify;

import dev.lancecommit.coordinator.concurrent.ClaimableTask;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.Executor;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The files one commit names, checked while it waits in its table's lane: the version that adds them then checks
 * only the rest ({@link CommitFileCheck#requireAdded}), so on an object store the checks' round trips overlap the
 * write in flight instead of adding to the next version's preparation.
 *
 * <p>Only "right" is kept: a file found wrong or not found at all is checked again by the version (the file may be
 * one the version carries, or the store may have failed), and that check alone refuses a commit. A check not started
 * when the lane needs its result never starts ({@link #claim}): the lane checks those files itself instead of waiting
 * for a thread that may not come; one under way is waited for, since it is on a thread and ends.
 */
public final class FilesCheckedAhead {
  private static final Logger LOG = LoggerFactory.getLogger(FilesCheckedAhead.class);

  /** No check ahead: the version checks every file it adds. */
  public static final FilesCheckedAhead NONE = new FilesCheckedAhead(ClaimableTask.done(Found.NONE));

  private final ClaimableTask<Found> check;

  private FilesCheckedAhead(ClaimableTask<Found> check) {
    this.check = check;
  }

  /**
   * Starts checking, on {@code executor}, the files of the fragments {@code transaction} names (decoding it there;
   * a transaction that does not decode checks nothing). An executor that refuses the task leaves every file to the
   * version's check.
   */
  static FilesCheckedAhead start(FileVerifier verifier, StorageLocation table, Supplier<Transaction> transaction,
      Executor executor) {
    return new FilesCheckedAhead(ClaimableTask.start(() -> {
      try {
        return verifier.checkFragments(table, fragmentsNamed(transaction.get()));
      } catch (RuntimeException e) {
        LOG.debug("Checking a commit's files ahead of its version failed; the version checks them", e);
        return Found.NONE;
      }
    }, executor));
  }

  /**
   * What was found right: waits for a check under way, and makes one not started yet never start (then nothing was
   * found). Called by the lane when it checks the version; every later call gives the same answer.
   */
  public Found claim() {
    return check.cancelOrAwait(Found.NONE);
  }

  /**
   * The fragments whose files a transaction brings: those it appends, writes or rewrites whole, and of the fragments
   * it deletes rows from only the deletion file (their data files are the ones the table has). Other operations are
   * left to the version's check: what they add can only be told from the version they build on.
   */
  static List<DataFragment> fragmentsNamed(Transaction txn) {
    List<DataFragment> fragments = new ArrayList<>();
    switch (txn.getOperationCase()) {
      case APPEND -> fragments.addAll(txn.getAppend().getFragmentsList());
      case OVERWRITE -> fragments.addAll(txn.getOverwrite().getFragmentsList());
      case DELETE -> addDeletions(txn.getDelete().getUpdatedFragmentsList(), fragments);
      case UPDATE -> {
        addDeletions(txn.getUpdate().getUpdatedFragmentsList(), fragments);
        fragments.addAll(txn.getUpdate().getNewFragmentsList());
      }
      case REWRITE -> {
        fragments.addAll(txn.getRewrite().getNewFragmentsList());
        txn.getRewrite().getGroupsList().forEach(group -> fragments.addAll(group.getNewFragmentsList()));
      }
      default -> { }
    }
    return fragments;
  }

  private static void addDeletions(List<DataFragment> updated, List<DataFragment> into) {
    for (DataFragment fragment : updated) {
      if (fragment.hasDeletionFile()) {
        into.add(DataFragment.newBuilder().setId(fragment.getId()).setPhysicalRows(fragment.getPhysicalRows())
            .setDeletionFile(fragment.getDeletionFile()).build());
      }
    }
  }

  /** Files found right, by what makes two references to a file the same ({@link NamedFile#identity()}). */
  public static final class Found {
    /** Nothing found: every file is checked by the version. */
    public static final Found NONE = new Found(Set.of());

    private final Set<Object> identities;

    Found(Set<Object> identities) {
      this.identities = identities;
    }

    boolean isEmpty() {
      return identities.isEmpty();
    }

    boolean right(NamedFile file) {
      return identities.contains(file.identity());
    }

    /** The files either found right. */
    public Found and(Found other) {
      if (other.isEmpty()) {
        return this;
      }
      if (isEmpty()) {
        return other;
      }
      Set<Object> both = new java.util.HashSet<>(identities);
      both.addAll(other.identities);
      return new Found(both);
    }
  }
}
