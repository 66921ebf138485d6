package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.coordinator.table.VersionTransaction;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.pb.Transaction;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit of a client using namespace-managed versioning (CreateTableVersion). Stock Lance writes the manifest of
 * the version it wants under a staging name, {@code _versions/{final name}-{uuid}}, and asks the namespace to make it
 * the version.
 *
 * <p>The coordinator does not copy those bytes: it takes the staged manifest's transaction (inline, else its
 * {@code .txn}), refuses with a {@link VersionConflictException} unless the staged version is the table's latest + 1,
 * and commits the transaction through the {@link CommitService}, like CommitTable: the conflict rules, lane ordering,
 * idempotent resubmits, ambiguous-write handling and the commit event are the same. The final manifest is the one
 * the lane builds from the transaction on the latest version, which for a transaction built on that version has the
 * staged manifest's content (fragments, schema, ids), with the coordinator's writer version, timestamp and the actor
 * recorded in its transaction. The staged file is removed once the version exists.
 *
 * <p>A transaction built on the version just before the staged one is committed with {@code rebase=false}, so a
 * commit that slips in between the check and the lane makes this a retryable conflict instead of landing the
 * transaction at another version. A transaction Lance already rebased on its side (its read_version is older) is
 * committed with rebase allowed; should it land at another version than staged, the answer names the version it did
 * land at (never a conflict for a committed transaction). A retried request whose transaction already made the
 * version answers that version again.
 *
 * <p>Three steps, so that the caller can check access to what the staged transaction reads (a Clone's source)
 * between them: {@link #stage} and {@link #finish} block, {@link #commit} returns the commit service's future.
 */
public final class CreateTableVersion {
  private static final Logger LOG = LoggerFactory.getLogger(CreateTableVersion.class);

  private final CommitService commits;
  private final Function<String, StorageLocation> stores;

  /**
   * @param stores resolves a table location to its store
   */
  public CreateTableVersion(CommitService commits, Function<String, StorageLocation> stores) {
    this.commits = Objects.requireNonNull(commits, "commits");
    this.stores = Objects.requireNonNull(stores, "stores");
  }

  /**
   * What a client asks for.
   *
   * @param stagedName the staged manifest's file name in {@code _versions/} ({@code {final name}-{suffix}})
   * @param manifestPath the path as the client gave it, for messages
   * @param version the version to create
   * @param size the staged manifest's size, when the client gave it
   */
  public record Request(String stagedName, String manifestPath, long version, OptionalLong size) {}

  /** A staged manifest checked against its table, ready to commit. */
  public static final class Staged {
    private final TableRef table;
    private final TableOperations ops;
    private final Request request;
    private final Transaction transaction;

    private Staged(TableRef table, TableOperations ops, Request request, Transaction transaction) {
      this.table = table;
      this.ops = ops;
      this.request = request;
      this.transaction = transaction;
    }

    public TableRef table() {
      return table;
    }

    /** The transaction the staged manifest carries: what is committed. */
    public Transaction transaction() {
      return transaction;
    }
  }

  /**
   * The version as created.
   *
   * @param manifestUri the full URI of the version's manifest
   * @param committedAt when the store wrote the manifest
   */
  public record Created(String transactionUuid, long version, String manifestUri, long manifestSize,
      Instant committedAt) {}

  /**
   * Reads and checks the staged manifest. Blocking.
   *
   * @throws InvalidCommitRequestException when it is missing, unreadable, of another size or version than asked, or
   *     carries no readable transaction
   * @throws VersionConflictException when the version is not the table's next one (and not already this transaction's)
   */
  public Staged stage(TableRef table, Request request) {
    TableOperations ops = TableOperations.of(stores.apply(table.location()));
    byte[] bytes = ops.readStagedManifest(request.stagedName()).orElseThrow(() -> new InvalidCommitRequestException(
        "No staged manifest at '" + request.manifestPath() + "'",
        "Write the manifest under its staging name before asking for version " + request.version()));
    if (request.size().isPresent() && request.size().getAsLong() != bytes.length) {
      throw new InvalidCommitRequestException("Staged manifest size does not match 'manifest_size'",
          "'" + request.manifestPath() + "' has " + bytes.length + " bytes, the request says "
              + request.size().getAsLong());
    }
    ManifestFile staged;
    try {
      staged = ManifestFile.decode(bytes);
    } catch (RuntimeException e) {
      throw new InvalidCommitRequestException("Staged manifest is not a Lance manifest", e.getMessage());
    }
    if (staged.version() != request.version()) {
      throw new InvalidCommitRequestException("Staged manifest does not match the version", "'"
          + request.manifestPath() + "' holds the manifest of version " + staged.version()
          + ", the request creates version " + request.version());
    }
    Transaction txn = transactionOf(ops, staged, request.manifestPath());

    TableVersions listing = ops.versions();
    long latest = listing.latest().orElse(0L);
    if (request.version() <= latest) {
      // The same request again (its answer lost): the version is already this transaction's, and the lane answers
      // it as the idempotent resubmit it is (publishing its event again).
      ManifestFile landed = ops.readManifest(request.version(), listing.scheme().orElseThrow()).orElse(null);
      if (landed != null && ops.transactionOf(landed).getUuid().equals(txn.getUuid())) {
        return new Staged(table, ops, request, txn);
      }
    }
    // A shallow Clone creates the table at the source's version number, not at 1.
    long next = latest == 0 && txn.hasClone() ? txn.getClone().getRefVersion() : latest + 1;
    if (request.version() != next) {
      throw new VersionConflictException(
          "Version " + request.version() + " cannot be created: the table's latest version is " + latest,
          request.version() <= latest
              ? "Version " + request.version() + " already exists; reload the table, rebuild the transaction on "
                  + "version " + latest + " and stage version " + (latest + 1)
              : "Versions must be created in order; the next version of this table is " + next);
    }
    return new Staged(table, ops, request, txn);
  }

  /** The staged manifest's transaction: inline, else the {@code .txn} file it names. */
  private static Transaction transactionOf(TableOperations ops, ManifestFile staged, String manifestPath) {
    VersionTransaction found = ops.lookupTransaction(staged);
    String file = found.fileName();
    return switch (found.source()) {
      case INLINE, FILE -> found.transaction();
      case NO_TRANSACTION -> throw new InvalidCommitRequestException("Staged manifest carries no transaction",
          "'" + manifestPath + "' has neither an inline transaction nor a transaction_file; the coordinator "
              + "commits transactions");
      case INVALID_FILE_NAME -> throw new InvalidCommitRequestException(
          "Staged manifest names an invalid transaction file",
          "'" + file + "' is not a {read_version}-{uuid}.txn name");
      case MISSING_FILE -> throw new InvalidCommitRequestException(
          "The staged manifest's transaction file is missing", "'" + manifestPath + "' names "
              + TransactionFiles.TRANSACTIONS_DIR + "/" + file + ", which does not exist");
      case UNREADABLE_FILE -> throw new InvalidCommitRequestException(
          "The staged manifest's transaction file is not a Lance transaction", found.failure().getMessage());
    };
  }

  /** Submits the staged transaction; the future completes with the version it landed as. */
  public CompletableFuture<Long> commit(Staged staged, String actor) {
    Transaction txn = staged.transaction;
    return commits.commit(staged.table, new CommitRequest(txn.toByteArray(), Optional.empty(),
            txn.getReadVersion() != staged.request.version() - 1, actor))
        .thenApply(CommitResult::version);
  }

  /** Removes the staged file and describes the version; blocking. */
  public Created finish(Staged staged, long version) {
    TableOperations ops = staged.ops;
    ManifestNaming.Scheme scheme = ops.versions().scheme().orElseThrow(() ->
        new StoreException("Version " + version + " was committed but _versions/ is empty"));
    String manifestUri = ops.manifestUri(version, scheme);
    ObjectInfo manifest = ops.manifestInfo(version, scheme).orElseThrow(() ->
        new StoreException("Version " + version + " was committed but its manifest " + manifestUri + " is missing"));
    try {
      ops.deleteStagedManifest(staged.request.stagedName());
    } catch (StoreException e) {
      LOG.warn("Version {} of {} committed; its staged manifest {} was not removed: {}", version,
          staged.table.joinedId(), staged.request.stagedName(), e.toString());
    }
    if (version != staged.request.version()) {
      LOG.warn("Transaction {} staged as version {} of {} landed as version {}", staged.transaction.getUuid(),
          staged.request.version(), staged.table.joinedId(), version);
    }
    return new Created(staged.transaction.getUuid(), version, manifestUri, manifest.size(),
        manifest.lastModified());
  }
}
