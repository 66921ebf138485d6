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
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.conflict.CommitConflictException;
import java.time.Instant;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The commit of a client using namespace-managed versioning (CreateTableVersion). Stock Lance writes the manifest of
 * the version it wants under a staging name, {@code _versions/{final name}-{uuid}}, and asks the namespace to make it
 * the version.
 *
 * <p>The coordinator does not copy those bytes: it takes the staged manifest's transaction (inline, else its
 * {@code .txn}) and commits it through the {@link CommitService}, like CommitTable: the conflict rules, lane ordering,
 * idempotent resubmits, ambiguous-write handling and the commit event are the same. The final manifest is the one
 * the lane builds from the transaction on the latest version, which for a transaction built on that version has the
 * staged manifest's content (fragments, schema, ids), with the coordinator's writer version and timestamp.
 *
 * <h2>Which version a staged transaction lands as</h2>
 *
 * <p>Stock Lance stages {@code dataset.manifest.version + 1}, the version after the latest one it loaded and checked
 * its transaction against ({@code commit_transaction} in {@code rust/lance/src/io/commit.rs}). The transaction's
 * read_version is that version's predecessor only when nothing landed since the writer read the table: pylance 14.0.2
 * keeps the version its commit started from (seen in {@code CommitBenchmark}'s pylance workload: 8 writers staged
 * e.g. version 7 with read_version 2), so under concurrency almost every staged transaction is older than the
 * staged version's predecessor. Either way the staged transaction becomes exactly the staged version or nothing
 * ({@link CommitRequest#landsAs}): the lane checks it by the conflict rules against every version since its read
 * version, as Lance did on its side, and refuses it as taken (409/14) when another commit got the staged version
 * first. That needs no listing of {@code _versions/}: the lane knows the latest version.
 *
 * <p>The client takes whatever version the answer names without checking it ({@code LanceNamespaceExternalManifestStore
 * ::put} in {@code rust/lance/src/io/commit/namespace_manifest.rs}), but it keeps the manifest it staged: the Dataset it
 * returns says {@code version()} = the staged number, holds the staged manifest (the versions landed in between are
 * missing, and its own new fragments carry the ids it chose, which in the real table belong to other writers'
 * fragments), and a next commit from it uses the staged number as its read version. A delete, update, compaction or
 * index build through that object would then name another writer's fragment. So a later version is answered only
 * where the table opts in ({@code managed_versioning.appends_on_latest=true}, for append-only ingest writers that
 * reopen the table instead of using the returned object): an Append whose staged version was taken lands on the
 * latest version when everything committed since its read version is an Append. That answer carries an e_tag no
 * store ever produces, so neither client's session cache can serve the staged manifest as the landed version
 * (Lance Java 7.0.0 looks manifests up by version and e_tag, and resolves the latest version with no e_tag).
 *
 * <p>A staged shallow Clone creates the table at its source's version number (checked by listing). A retried request
 * whose transaction already made a version answers that version again.
 *
 * <p>Three steps, so that the caller can check access to what the staged transaction reads (a Clone's source)
 * between them: {@link #stage} and {@link #finish} block, {@link #commit} returns the commit service's future.
 */
public final class CreateTableVersion {
  private static final Logger LOG = LoggerFactory.getLogger(CreateTableVersion.class);

  /** Starts the e_tag of an answer naming another version than the staged one; no object store makes such e_tags. */
  public static final String LANDED_ELSEWHERE_ETAG_PREFIX = "lance-coordinator-landed-elsewhere-";

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
   * @param scheme the naming scheme of the final name the staged name carries
   * @param appendsOnLatest whether the table lets an Append whose staged version was taken land on the latest version
   */
  public record Request(String stagedName, String manifestPath, long version, OptionalLong size,
      ManifestNaming.Scheme scheme, boolean appendsOnLatest) {}

  /** A staged manifest checked against its table, ready to commit. */
  public static final class Staged {
    private final TableRef table;
    private final TableOperations ops;
    private final Request request;
    private final Transaction transaction;
    /** What the transaction's {@code .txn} file is known to hold. */
    private final CommitRequest.TransactionFile transactionFile;

    private Staged(TableRef table, TableOperations ops, Request request, Transaction transaction,
        CommitRequest.TransactionFile transactionFile) {
      this.table = table;
      this.ops = ops;
      this.request = request;
      this.transaction = transaction;
      this.transactionFile = transactionFile;
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
   * @param committedAt the version's timestamp (the manifest's, or when the store wrote it)
   * @param eTag an e_tag for the answer: empty when the version is the staged one; when it is another, one that names
   *     no stored object, so that the client's caches never take its staged manifest for the landed version
   */
  public record Created(String transactionUuid, long version, String manifestUri, long manifestSize,
      Instant committedAt, Optional<String> eTag) {}

  /**
   * Reads and checks the staged manifest. Blocking.
   *
   * @throws InvalidCommitRequestException when it is missing, unreadable, of another size or version than asked, or
   *     carries no readable transaction
   * @throws VersionConflictException when the version is not the table's next one (and not already this transaction's)
   */
  public Staged stage(TableRef table, Request request) {
    TableOperations ops = TableOperations.of(stores.apply(table.branchRoot())); // a branch has its own _versions/
    byte[] bytes = ops.readStagedManifest(request.stagedName()).orElseThrow(() -> new InvalidCommitRequestException(
        "No staged manifest at '" + request.manifestPath() + "'",
        "Write the manifest under its staging name before asking for version " + request.version()));
    if (request.size().isPresent() && request.size().getAsLong() != bytes.length) {
      throw new InvalidCommitRequestException("Staged manifest size does not match 'manifest_size'",
          "'" + request.manifestPath() + "' has " + bytes.length + " bytes, the request says "
              + request.size().getAsLong());
    }
    // Only its version and transaction are read: the lane builds the version from the transaction, so decoding the
    // staged snapshot's fragments would cost a commit as much as the table is large.
    ManifestFile.TransactionPart staged;
    try {
      staged = ManifestFile.decodeTransactionPart(bytes);
    } catch (RuntimeException e) {
      throw new InvalidCommitRequestException("Staged manifest is not a Lance manifest", e.getMessage());
    }
    if (staged.version() != request.version()) {
      throw new InvalidCommitRequestException("Staged manifest does not match the version", "'"
          + request.manifestPath() + "' holds the manifest of version " + staged.version()
          + ", the request creates version " + request.version());
    }
    VersionTransaction found = ops.lookupTransaction(staged);
    Transaction txn = transactionOf(found, request.manifestPath());
    if (txn.hasClone()) {
      requireNext(ops, request, txn);
    }
    // Anything else: the lane lands it as exactly this version or refuses it, without a listing here.
    return new Staged(table, ops, request, txn, transactionFile(staged, found, txn));
  }

  /**
   * Lance writes the transaction's file before it stages the manifest that names it, so a staged manifest naming the
   * file the coordinator would write says the writer wrote it. Where the transaction was read from that very file
   * (pylance 14 stages no inline copy), the file is known to hold it, and the lane need not read it a second time.
   */
  private static CommitRequest.TransactionFile transactionFile(ManifestFile.TransactionPart staged,
      VersionTransaction found, Transaction txn) {
    if (!staged.transactionFile().equals(TransactionFiles.fileName(txn))) {
      return CommitRequest.TransactionFile.NOT_WRITTEN;
    }
    return found.source() == VersionTransaction.Source.FILE
        ? CommitRequest.TransactionFile.READ_AS_SENT : CommitRequest.TransactionFile.WRITTEN;
  }

  /**
   * For a Clone: the staged version must be the table's next one (or already this transaction's). Lists
   * {@code _versions/}.
   */
  private static void requireNext(TableOperations ops, Request request, Transaction txn) {
    TableVersions listing = ops.versions();
    long latest = listing.latest().orElse(0L);
    if (request.version() <= latest) {
      // The same request again (its answer lost): the version is already this transaction's, and the lane answers
      // it as the idempotent resubmit it is (publishing its event again).
      ManifestFile landed = ops.readManifest(request.version(), listing.scheme().orElseThrow()).orElse(null);
      if (landed != null && ops.transactionOf(landed).getUuid().equals(txn.getUuid())) {
        return;
      }
    }
    // A shallow Clone creates the table at the source's version number, not at 1.
    long next = latest == 0 && txn.hasClone() ? txn.getClone().getRefVersion() : latest + 1;
    if (request.version() != next) {
      throw notNext(request.version(), latest, next);
    }
  }

  private static VersionConflictException notNext(long version, long latest, long next) {
    return new VersionConflictException(
        "Version " + version + " cannot be created: the table's latest version is " + latest,
        version <= latest
            ? "Version " + version + " already exists; reload the table, rebuild the transaction on "
                + "version " + latest + " and stage version " + (latest + 1)
            : "Versions must be created in order; the next version of this table is " + next);
  }

  /** The staged manifest's transaction: inline, else the {@code .txn} file it names. */
  private static Transaction transactionOf(VersionTransaction found, String manifestPath) {
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

  /**
   * Submits the staged transaction; the future completes with the commit's answer (the version it landed as), or
   * fails with a {@link VersionConflictException} when the staged version is taken (or not the next one) and the
   * transaction may not move on.
   */
  public CompletableFuture<CommitResult> commit(Staged staged, String actor) {
    return commits.commit(staged.table, request(staged, actor))
        .handle((result, failure) -> {
          if (failure == null) {
            return result;
          }
          Throwable cause = failure instanceof CompletionException && failure.getCause() != null
              ? failure.getCause() : failure;
          throw new CompletionException(asVersionConflict(staged, cause));
        });
  }

  /**
   * The commit of a staged transaction. It becomes exactly the staged version or nothing (a Clone: the version
   * {@link #stage} checked), checked by the conflict rules against every version since its read version and rebased
   * over those (which Lance did on its side before staging); on a table that opted into appends on the latest
   * version, an Append instead lands on the latest version when everything committed since its read version is an
   * Append. A stock client staged the manifest of its version: it gets a version of its own, never a share of a
   * group.
   */
  public static CommitRequest request(Staged staged, String actor) {
    Transaction txn = staged.transaction;
    boolean exact = txn.getReadVersion() == staged.request.version() - 1;
    boolean onLatest = staged.request.appendsOnLatest() && txn.hasAppend();
    // Read at the staged version's predecessor, rebase=false alone keeps it to that version (and lets the builder
    // tell an invalid transaction from a taken version first).
    long landsAs = onLatest || exact || txn.hasClone() ? 0 : staged.request.version();
    return new CommitRequest(txn.toByteArray(), Optional.empty(), !exact || onLatest, actor, onLatest, false,
        landsAs, staged.transactionFile);
  }

  /**
   * The lane's refusal of a staged transaction, said as what it means for the staged version: taken (another commit
   * landed since its read version, or took the staged version), or not yet the next one (the version or the read
   * version is ahead of the table; rare, so the listing that tells which is made only then).
   */
  private static Throwable asVersionConflict(Staged staged, Throwable cause) {
    long version = staged.request.version();
    if (cause instanceof CommitConflictException conflict && conflict.retryable()) {
      boolean taken = conflict.conflictingVersion() >= version;
      String since = taken ? "version " + (version - 1) : "its read version " + staged.transaction.getReadVersion();
      String what = taken ? "Version " + version + " already exists" : "The staged transaction conflicts with version "
          + conflict.conflictingVersion() + " (" + conflict.conflictingOperation() + ")";
      return new VersionConflictException("Version " + version + " cannot be created: version "
          + conflict.conflictingVersion() + " (" + conflict.conflictingOperation() + ") was committed since "
          + since, what + "; reload the table, rebuild the transaction on the latest version and stage the version "
          + "after it");
    }
    if (cause instanceof InvalidTransactionException) {
      long latest = staged.ops.versions().latest().orElse(0L);
      if (version > latest + 1) {
        return notNext(version, latest, latest + 1);
      }
    }
    return cause;
  }

  /** Removes the staged file and describes the version; blocking. */
  public Created finish(Staged staged, CommitResult committed) {
    removeStaged(staged);
    return describe(staged, committed);
  }

  /**
   * Removes the staged manifest (best effort: one left behind is a file no manifest names, as after a failed Lance
   * commit); blocking. Independent of {@link #describe}, so a caller may run the two side by side.
   */
  public void removeStaged(Staged staged) {
    try {
      staged.ops.deleteStagedManifest(staged.request.stagedName());
    } catch (StoreException e) {
      LOG.warn("Version of {} committed; its staged manifest {} was not removed: {}", staged.table.joinedId(),
          staged.request.stagedName(), e.toString());
    }
  }

  /**
   * Describes the version as created: its manifest's size and timestamp as the commit wrote them, without a store
   * request ({@link CommitResult#written}); for a version that landed before (a request made again) they are asked
   * of the store, and this blocks.
   */
  public Created describe(Staged staged, CommitResult committed) {
    TableOperations ops = staged.ops;
    long version = committed.version();
    ManifestNaming.Scheme scheme = staged.request.scheme();
    String manifestUri = ops.manifestUri(version, scheme);
    CommitResult.WrittenManifest manifest = committed.written().orElseGet(() -> {
      ObjectInfo info = ops.manifestInfo(version, scheme).orElseThrow(() -> new StoreException(
          "Version " + version + " was committed but its manifest " + manifestUri + " is missing"));
      return new CommitResult.WrittenManifest(info.size(), info.lastModified());
    });
    Optional<String> eTag = Optional.empty();
    if (version != staged.request.version()) {
      LOG.debug("Transaction {} staged as version {} of {} landed as version {}", staged.transaction.getUuid(),
          staged.request.version(), staged.table.joinedId(), version);
      eTag = Optional.of(LANDED_ELSEWHERE_ETAG_PREFIX + staged.transaction.getUuid());
    }
    return new Created(staged.transaction.getUuid(), version, manifestUri, manifest.size(), manifest.timestamp(),
        eTag);
  }
}
