package dev.lancecommit.rules.rebase;

import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.Transaction;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.SortedSet;
import java.util.TreeSet;

/**
 * The result of rebasing a transaction onto the latest version: the transaction to commit (its
 * {@code read_version} is the latest version) and the deletion files to write before committing it.
 *
 * <p>Order for the caller: write every file of {@link #deletionFiles()} (plain PUT; the names are unique by their
 * random id), then write the transaction and the manifest built from {@link #transaction()}. If the manifest write
 * loses a race, the written deletion files are orphans: harmless, left for cleanup like Lance leaves them.
 *
 * @param transaction the rebased transaction: ours with {@code read_version} = the latest version, each rebased
 *     updated fragment pointing at its new deletion file, fragments whose rows are now all deleted moved from the
 *     updated fragments to the deleted (Delete) / removed (Update) fragment ids
 * @param deletionFiles the new deletion files, one per rebased fragment that still has live rows, by fragment id
 * @param removedFragmentIds the rebased fragments whose merged deletions cover every physical row, now removed
 */
public record RebasePlan(
    Transaction transaction, List<NewDeletionFile> deletionFiles, SortedSet<Long> removedFragmentIds) {

  public RebasePlan {
    Objects.requireNonNull(transaction, "transaction");
    deletionFiles = List.copyOf(deletionFiles);
    removedFragmentIds = Collections.unmodifiableSortedSet(new TreeSet<>(removedFragmentIds));
  }

  /** The version the transaction is now based on (the latest version). */
  public long readVersion() {
    return transaction.getReadVersion();
  }

  /** Relative path under the table root -> bytes, for every new deletion file, in fragment order. */
  public Map<String, byte[]> filesToWrite() {
    Map<String, byte[]> files = new LinkedHashMap<>();
    for (NewDeletionFile file : deletionFiles) {
      files.put(file.relativePath(), file.bytes());
    }
    return Collections.unmodifiableMap(files);
  }
}
