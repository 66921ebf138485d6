package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.concurrent.ClaimableTask;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StagedPut;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.retry.Backoff;
import dev.lancecommit.retry.RetryPolicy;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.group.GroupMembers;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.concurrent.Executor;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentSkipListMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One table's versions on its store: the seam every reader and writer of them goes through, in the role Iceberg's
 * {@code TableOperations} plays for a table's metadata.
 *
 * <ul>
 *   <li>State: {@link #current()} is the table as last seen (an immutable {@link TableSnapshot}), {@link #refresh()}
 *       lists {@code _versions/} again.
 *   <li>Commit: {@link #commit(TableSnapshot, NextVersion)} writes a version built on {@code base} with the one
 *       conditional write a Lance commit has, the manifest's put-if-absent, after its {@code .txn} file. It settles a
 *       write whose outcome is unknown by reading it back, and says when another writer holds the version.
 *   <li>Reading: {@link #versions()}, {@link #versionFiles()}, manifests by version, and the transaction of a version
 *       ({@link #lookupTransaction}: inline, else its {@code .txn} file).
 *   <li>Auxiliary files: the deletion files the server-side rebase reads and writes, Lance's
 *       {@code latest_version_hint.json} (moved on with every commit) and the staged manifests of namespace-managed
 *       versioning.
 * </ul>
 *
 * Data files are not versions and stay outside: checks of them go through {@link #location()}.
 *
 * <p>Blocking: call it from worker threads. Reading is safe from any thread; {@link #current()}, {@link #refresh()}
 * and {@link #commit} are meant for the table's one lane, which calls them one at a time.
 */
public final class TableOperations {
  /** Lance's best-effort pointer to the latest version, {@code {"version":N}}, kept on unordered stores. */
  static final String VERSION_HINT = "latest_version_hint.json";
  /** Keys read to find the newest V2 manifest on an ordered store (staged manifests of later versions come first). */
  private static final int NEWEST_LISTING_KEYS = 50;
  /** A manifest staged this long ago and not linked was abandoned (a write links it within its own round trip). */
  static final java.time.Duration ABANDONED_STAGING = java.time.Duration.ofHours(1);
  private static final Pattern HINT_VERSION = Pattern.compile("\"version\"\\s*:\\s*([0-9]{1,18})");
  private static final Logger LOG = LoggerFactory.getLogger(TableOperations.class);
  /** Between read-backs and create retries of a manifest write whose outcome is unknown (attempts: options). */
  private static final RetryPolicy AMBIGUOUS_WRITE_RETRY =
      RetryPolicy.exponential(Duration.ofMillis(100), Duration.ofSeconds(2));

  /** Transaction files owed at most: past this many, the oldest is given up (its version keeps the inline copy). */
  static final int MAX_OWED_TRANSACTION_FILES = 1024;

  private final StorageLocation location;
  private final Options options;
  /**
   * Versions that landed without their {@code .txn} file (written beside the manifest and once more, both failed),
   * by version: {@link #writeOwedTransactionFiles} tries again, off the commit's path.
   */
  private final ConcurrentSkipListMap<Long, Transaction> owedTransactionFiles = new ConcurrentSkipListMap<>();
  /** Null until loaded, and again once a commit found the table moved on: the next {@link #current()} lists. */
  private volatile TableSnapshot state;
  private volatile boolean loadedBefore;

  /**
   * @param name the table as log lines and errors name it
   * @param recentTransactions transactions of recent versions kept in memory for conflict checks
   * @param ambiguousWriteAttempts create attempts (and read-backs) for a manifest write whose outcome is unknown
   * @param newTableScheme manifest naming scheme of the first version of a table that has none
   */
  public record Options(String name, int recentTransactions, int ambiguousWriteAttempts,
      ManifestNaming.Scheme newTableScheme) {
    public Options {
      Objects.requireNonNull(name, "name");
      Objects.requireNonNull(newTableScheme, "newTableScheme");
    }
  }

  private TableOperations(StorageLocation location, Options options) {
    this.location = Objects.requireNonNull(location, "location");
    this.options = options;
  }

  /** The operations of the table rooted at {@code location}, for reading (and commits with default options). */
  public static TableOperations of(StorageLocation location) {
    return new TableOperations(location,
        new Options(location.uri(), 1, 1, ManifestNaming.DEFAULT_FOR_NEW_TABLES));
  }

  public static TableOperations of(StorageLocation location, Options options) {
    return new TableOperations(location, options);
  }

  /** The table root. Versions are read and written through this class; data files through the location. */
  public StorageLocation location() {
    return location;
  }

  // ------------------------------------------------------------------------------------------------ state

  /** The table as last seen; listed on first use and after a commit found the table moved on. */
  public TableSnapshot current() {
    TableSnapshot known = state;
    return known != null ? known : refresh();
  }

  /**
   * Lists {@code _versions/} and reads the latest manifest and its transaction. The first time, also removes
   * manifests staged more than {@link #ABANDONED_STAGING} ago and never linked (a coordinator stopped between the
   * two): no write holds a staged manifest that long.
   */
  public TableSnapshot refresh() {
    boolean firstLoad = !loadedBefore;
    if (firstLoad) {
      loadedBefore = true;
      try {
        int removed = location.store().removeAbandonedStagedPuts(location.key(ManifestNaming.VERSIONS_DIR),
            java.time.Instant.now().minus(ABANDONED_STAGING));
        if (removed > 0) {
          LOG.info("Removed {} abandoned staged manifest(s) of {}", removed, options.name());
        }
      } catch (RuntimeException e) {
        LOG.debug("Could not look for abandoned staged manifests of {}", options.name(), e);
      }
    }
    TableVersions listing = versions();
    TableSnapshot.RecentTransactions recent = new TableSnapshot.RecentTransactions(options.recentTransactions());
    TableSnapshot loaded;
    if (listing.isEmpty()) {
      loaded = new TableSnapshot(null, 0, options.newTableScheme(), recent);
    } else {
      ManifestNaming.Scheme scheme = listing.scheme().orElseThrow();
      long latestVersion = listing.latest().getAsLong();
      ManifestFile file = readManifest(latestVersion, scheme)
          .orElseThrow(() -> new StoreException("Version " + latestVersion + " vanished while loading"));
      recent.remember(latestVersion, transactionOf(file));
      if (firstLoad) {
        restoreTransactionFile(file);
      }
      loaded = new TableSnapshot(file.tableState(), listing.first().getAsLong(), scheme, recent);
    }
    state = loaded;
    return loaded;
  }

  /**
   * A group's {@code .txn} is written beside its manifest ({@link #stagedWithTransactionBeside}); a coordinator that
   * stopped between the two left that version with only the inline copy. The table's first load writes the file of
   * its latest version from that copy when it is missing. Only the latest can lack it, with one exception: a version
   * whose file failed twice while the coordinator ran ({@link #writeOwedTransactionFiles}, which the lane calls after
   * each later commit; a coordinator that stopped before that left it to the copy inside the manifest). Best effort,
   * one request on a store whose requests are round trips (a local disk always writes the {@code .txn} first).
   */
  private void restoreTransactionFile(ManifestFile file) {
    String name = file.manifest().getTransactionFile();
    if (!location.store().requestsAreRoundTrips() || file.transaction().isEmpty() || name.isEmpty()
        || TransactionFiles.parse(name).isEmpty() || name.indexOf('/') >= 0) {
      return;
    }
    String key = location.key(TransactionFiles.TRANSACTIONS_DIR + "/" + name);
    try {
      if (location.store().head(key).isEmpty()) {
        writeOnce(key, TransactionFiles.encode(file.transaction().get()), false);
        LOG.info("Wrote the missing transaction file {} of version {} of {} from its manifest's inline copy", name,
            file.version(), options.name());
      }
    } catch (RuntimeException e) {
      LOG.debug("Could not restore the transaction file {} of {}", name, options.name(), e);
    }
  }

  // ------------------------------------------------------------------------------------------------ commit

  /** True when {@code snapshot} is the table's current state ({@link #commit(StagedVersion)} may write on it). */
  public boolean isCurrent(TableSnapshot snapshot) {
    TableSnapshot known = state;
    return known != null && (known == snapshot || known.sameStateAs(snapshot));
  }

  /**
   * Writes the files of {@code next} except its manifest: the deletion files it names ({@code auxiliaryFiles},
   * relative paths under {@code _deletions/}), then its transaction to {@code _transactions/{read_version}-{uuid}.txn}
   * (before the manifest like Lance, so a version never lacks its {@code .txn}). Each is created only if absent: a
   * file already there with the same bytes (an earlier attempt of the same transaction) is kept, one with other
   * bytes is never overwritten. {@code base} need not have landed yet.
   *
   * @throws CommitConflictException (not retryable) when a file of that name holds other bytes: the transaction's
   *     uuid was used for another transaction at the same read version
   * @throws StoreUnavailableException when the store is down (nothing of the version is visible: no manifest)
   */
  public StagedVersion stage(TableSnapshot base, NextVersion next, Map<String, byte[]> auxiliaryFiles) {
    stageDeletionFiles(auxiliaryFiles);
    stageTransaction(next.transaction());
    return staged(base, next);
  }

  /**
   * The version whose transaction file {@link #stageTransaction} wrote and whose auxiliary files
   * {@link #stageDeletionFiles} wrote: what {@link #stage} gives, for a caller that wrote them itself.
   */
  public StagedVersion staged(TableSnapshot base, NextVersion next) {
    return staged(base, next, null);
  }

  /**
   * {@link #staged(TableSnapshot, NextVersion)}, with what the store does ahead of the manifest's create (a local
   * disk writes and flushes it under a temporary name) done on {@code manifestStaging} (null: here), while the caller
   * goes on and the version before is written; {@link #commit(StagedVersion)} waits for it, or does it itself if it
   * has not started. A store that does nothing ahead (requests are round trips) is not given a thread for it.
   */
  public StagedVersion staged(TableSnapshot base, NextVersion next, Executor manifestStaging) {
    return new StagedVersion(base, next, manifestStaging(next, manifestStaging));
  }

  private ManifestStaging manifestStaging(NextVersion next, Executor manifestStaging) {
    String key = manifestKey(next.version(), next.scheme());
    java.util.function.Supplier<StagedPut> stage = () -> location.store().stagePutIfAbsent(key, next.manifestFile());
    boolean ahead = manifestStaging != null && !location.store().requestsAreRoundTrips();
    return ahead ? ManifestStaging.start(stage, manifestStaging) : ManifestStaging.now(stage);
  }

  /**
   * {@link #staged(TableSnapshot, NextVersion, Executor)} for a version whose {@code .txn} is not written yet:
   * {@link #commit(StagedVersion)} writes it on {@code transactionWriter} while it creates the manifest (or itself,
   * after the create, if no thread took it), so the two round trips of an object store overlap instead of adding up.
   * Only for a transaction whose file name nobody else can hold (a group's recorded transaction, named by a uuid the
   * lane drew): a file of that name holding other bytes could otherwise be found only after the manifest named it.
   * The manifest carries the transaction inline, which is what every reader since Nov 2025 reads first; a reader
   * that reads only the file may, for that one round trip, find a version whose file is not there yet.
   */
  public StagedVersion stagedWithTransactionBeside(TableSnapshot base, NextVersion next, Executor manifestStaging,
      Executor transactionWriter) {
    return new StagedVersion(base, next, manifestStaging(next, manifestStaging),
        Objects.requireNonNull(transactionWriter, "transactionWriter"));
  }

  /**
   * {@link #staged}, except that nothing of the manifest is written before {@link #commit(StagedVersion)}: for a
   * version that may be dropped where nobody would {@linkplain StagedVersion#discard() discard} it (a batch member
   * built under a hold).
   */
  public StagedVersion stagedWithoutManifest(TableSnapshot base, NextVersion next) {
    return new StagedVersion(base, next, ManifestStaging.now(
        () -> StagedPut.deferred(location.store(), manifestKey(next.version(), next.scheme()), next.manifestFile())));
  }

  /** Writes the transaction's {@code _transactions/} file (create-only, as {@link #stage} does). */
  public void stageTransaction(Transaction txn) {
    writeOnce(location.key(TransactionFiles.path(txn)), TransactionFiles.encode(txn), false);
  }

  /**
   * {@link #stageTransaction} for a transaction whose writer says it wrote the file itself: reads it first, and
   * creates it only when it is missing. The outcome is {@link #stageTransaction}'s (the same bytes there: done; other
   * bytes: the uuid was reused), with one store request where the writer did write it instead of a create that fails
   * and then the same read.
   */
  public void stageTransactionWrittenByWriter(Transaction txn) {
    String key = location.key(TransactionFiles.path(txn));
    byte[] bytes = TransactionFiles.encode(txn);
    Optional<byte[]> existing;
    try {
      existing = location.store().get(key);
    } catch (StoreException e) {
      existing = Optional.empty(); // the create, with its retries, settles it as it would have without the read
    }
    if (existing.isEmpty()) {
      writeOnce(key, bytes, false);
    } else if (!Arrays.equals(existing.get(), bytes)) {
      throw uuidReused(key);
    }
  }

  /**
   * Removes a transaction file {@link #stageTransaction} wrote for a version that will not be written. Best effort:
   * a file left behind is named by no manifest, as the file of any failed Lance commit.
   */
  public void discardTransaction(Transaction txn) {
    String key = location.key(TransactionFiles.path(txn));
    try {
      location.store().delete(key);
    } catch (RuntimeException e) {
      LOG.warn("Could not remove the transaction file {} of a version that was not written", key, e);
    }
  }

  /**
   * Whether store requests are round trips worth overlapping
   * ({@link dev.lancecommit.coordinator.storage.ObjectStore#requestsAreRoundTrips}).
   */
  public boolean requestsAreRoundTrips() {
    return location.store().requestsAreRoundTrips();
  }

  /**
   * Writes the deletion files a server-side rebase made (create-only, as {@link #stage} does; flushed: a deletion file
   * must survive anything its manifest survives). Unreferenced until a manifest names them, so they can be written
   * before the files a version adds are checked.
   */
  public void stageDeletionFiles(Map<String, byte[]> files) {
    files.forEach((path, bytes) -> writeOnce(location.key(requireDeletionPath(path)), bytes, true));
  }

  /**
   * Makes a staged version the table's version with put-if-absent on its manifest. A write whose outcome is unknown
   * is settled by reading the version back: ours means landed, someone else's means taken, absent means the create
   * is retried (safe: it cannot overwrite). Lance's version hint is not moved here: callers do that off the
   * critical path ({@link #writeVersionHint}).
   *
   * @throws IllegalStateException when the version's base is not {@link #current()}
   * @throws CommitStateUnknownException when reading back kept failing; the next {@link #current()} lists again
   * @throws StoreUnavailableException when the store certainly did not take the manifest
   */
  public CommitOutcome commit(StagedVersion staged) {
    NextVersion next = staged.next();
    if (!isCurrent(staged.base())) {
      // nothing attempted: the staged version can still be committed once its base lands
      throw new IllegalStateException("Version " + next.version() + " of " + options.name()
          + " was built on a state of the table that is not the current one");
    }
    ClaimableTask<RuntimeException> transaction = staged.transactionBeside() == null ? null
        : ClaimableTask.start(() -> writeTransaction(next.transaction()), staged.transactionBeside());
    boolean created;
    try {
      created = createManifest(next, staged.manifest());
    } catch (RuntimeException e) {
      if (transaction != null) {
        transaction.runOrAwait(); // the version may have landed, naming it: the file is written either way
      }
      throw e;
    } finally {
      staged.discard(); // after a create, nothing is left to remove
    }
    if (transaction != null) {
      settleTransactionBeside(next, transaction.runOrAwait(), created);
    }
    if (!created) {
      state = null; // someone else committed: list again and check against what landed
      return new CommitOutcome.Taken(next.version());
    }
    TableSnapshot landed = staged.after();
    landed.recent.remember(next.version(), next.transaction());
    state = landed;
    return new CommitOutcome.Landed(landed);
  }

  /** Writes a transaction's file; the failure, if any, is returned (the caller decides what it means). */
  private RuntimeException writeTransaction(Transaction txn) {
    try {
      stageTransaction(txn);
      return null;
    } catch (RuntimeException e) {
      return e;
    }
  }

  /**
   * After the manifest's create, the {@code .txn} written beside it: removed if the version was taken; if the version
   * landed and the file could not be written, tried once more, and if that fails too the version keeps only its
   * inline copy, which every reader since Nov 2025 reads first (the file is what older readers read).
   */
  private void settleTransactionBeside(NextVersion next, RuntimeException failure, boolean created) {
    if (!created) {
      if (failure == null) {
        discardTransaction(next.transaction());
      }
      return;
    }
    if (failure == null) {
      return;
    }
    RuntimeException again = writeTransaction(next.transaction());
    if (again != null) {
      LOG.warn("Version {} of {} landed, but its transaction file {} could not be written yet; readers read the copy"
          + " inside its manifest, and the file is written again after the table's next commits",
          next.version(), options.name(), TransactionFiles.path(next.transaction()), again);
      owedTransactionFiles.put(next.version(), next.transaction());
      while (owedTransactionFiles.size() > MAX_OWED_TRANSACTION_FILES) {
        Map.Entry<Long, Transaction> oldest = owedTransactionFiles.pollFirstEntry();
        if (oldest != null) {
          LOG.error("Giving up the transaction file {} of version {} of {}: {} newer ones are owed; the version keeps"
              + " the copy inside its manifest", TransactionFiles.path(oldest.getValue()), oldest.getKey(),
              options.name(), MAX_OWED_TRANSACTION_FILES);
        }
      }
    }
  }

  /** True when a version that landed still lacks its transaction file ({@link #writeOwedTransactionFiles}). */
  public boolean owesTransactionFiles() {
    return !owedTransactionFiles.isEmpty();
  }

  /**
   * Writes the transaction files of landed versions whose writes failed, oldest first, stopping at the first that
   * fails again (the store is likely still failing; the next call tries again). Idempotent: a file already there with
   * the same bytes counts as written. Blocking: call it off the commit's path.
   *
   * @return how many are still owed
   */
  public int writeOwedTransactionFiles() {
    for (Map.Entry<Long, Transaction> owed : owedTransactionFiles.entrySet()) {
      RuntimeException failure = writeTransaction(owed.getValue());
      if (failure instanceof CommitConflictException) {
        LOG.error("The transaction file {} of version {} of {} holds another transaction; leaving it as it is",
            TransactionFiles.path(owed.getValue()), owed.getKey(), options.name(), failure);
      } else if (failure != null) {
        LOG.warn("The transaction file {} of version {} of {} still cannot be written: {}",
            TransactionFiles.path(owed.getValue()), owed.getKey(), options.name(), failure.toString());
        break;
      } else {
        LOG.info("Wrote the transaction file {} of version {} of {}, owed since its commit",
            TransactionFiles.path(owed.getValue()), owed.getKey(), options.name());
      }
      owedTransactionFiles.remove(owed.getKey(), owed.getValue());
    }
    return owedTransactionFiles.size();
  }

  /** {@link #stage} without auxiliary files, then {@link #commit(StagedVersion)}, then the version hint. */
  public CommitOutcome commit(TableSnapshot base, NextVersion next) {
    if (!isCurrent(base)) {
      throw new IllegalStateException("Version " + next.version() + " of " + options.name()
          + " was built on a state of the table that is not the current one");
    }
    CommitOutcome outcome = commit(stage(base, next, Map.of()));
    if (outcome instanceof CommitOutcome.Landed) {
      writeVersionHint(next.version());
    }
    return outcome;
  }

  /** Creates {@code key} with {@code bytes} unless it holds them already; never replaces other bytes. */
  private void writeOnce(String key, byte[] bytes, boolean flush) {
    StoreException lastFailure = null;
    Backoff backoff = AMBIGUOUS_WRITE_RETRY.withMaxAttempts(Math.max(1, options.ambiguousWriteAttempts())).start();
    while (true) {
      try {
        if (flush) {
          location.store().putIfAbsent(key, bytes);
        } else {
          location.store().putIfAbsentUnflushed(key, bytes);
        }
        return;
      } catch (ObjectAlreadyExistsException e) {
        Optional<byte[]> existing = location.store().get(key);
        if (existing.isPresent() && Arrays.equals(existing.get(), bytes)) {
          return; // an earlier attempt of ours wrote it
        }
        if (existing.isPresent()) {
          throw uuidReused(key);
        }
        // removed in between (cleanup of an orphan): create it again
      } catch (StoreOutcomeUnknownException e) {
        lastFailure = e; // the next attempt finds it there (then compares) or creates it
      }
      Optional<Duration> pause = backoff.onFailure();
      if (pause.isEmpty()) {
        break;
      }
      if (lastFailure != null) {
        pause(pause.get());
      }
    }
    throw new StoreUnavailableException("Could not write " + key
        + (lastFailure == null ? " (it kept vanishing)" : ": " + lastFailure.getMessage()), lastFailure);
  }

  private CommitConflictException uuidReused(String key) {
    return new CommitConflictException(false, state == null ? 0 : state.latestVersion(), "unknown", "uuid-reuse",
        "'" + location.store().uriOf(key) + "' already holds another transaction's"
            + " file; the transaction's uuid was used before for another transaction at the same read version."
            + " A new transaction needs a new uuid");
  }

  /** True when the manifest landed (now or by an earlier attempt of ours), false when another writer's is there. */
  private boolean createManifest(NextVersion next, StagedPut staged) {
    long version = next.version();
    ManifestNaming.Scheme scheme = next.scheme();
    String uuid = next.transaction().getUuid();
    StoreException lastFailure = null;
    Backoff backoff = null;
    StagedPut first = staged; // the first attempt creates what was staged; a retry puts the bytes again
    while (true) {
      try {
        if (first != null) {
          StagedPut attempt = first;
          first = null;
          attempt.create();
        } else {
          location.store().putIfAbsent(manifestKey(version, scheme), next.manifestFile());
        }
        return true;
      } catch (ObjectAlreadyExistsException e) {
        // A retried create can find the version taken by its own earlier attempt that did land.
        return madeBy(version, scheme, uuid);
      } catch (StoreUnavailableException e) {
        if (lastFailure == null) {
          throw e; // certainly not applied, and nothing of ours may be in flight
        }
        lastFailure = e;
      } catch (StoreOutcomeUnknownException e) {
        lastFailure = e;
        LOG.warn("Outcome of writing version {} of {} is unknown; reading it back", version, options.name(), e);
        try {
          Optional<ManifestFile> landed = readManifest(version, scheme);
          if (landed.isPresent()) {
            return transactionOf(landed.get()).getUuid().equals(uuid);
          }
        } catch (StoreException readBack) {
          lastFailure = readBack;
        }
      }
      if (backoff == null) {
        backoff = AMBIGUOUS_WRITE_RETRY.withMaxAttempts(options.ambiguousWriteAttempts()).start();
      }
      Optional<Duration> pause = backoff.onFailure();
      if (pause.isEmpty()) {
        break;
      }
      pause(pause.get());
    }
    state = null; // whatever happened, do not trust the cached state
    throw new CommitStateUnknownException(version,
        "Could not tell whether version " + version + " of table " + options.name() + " was written: "
            + lastFailure.getMessage() + ". Resubmit the same transaction to find out or finish the commit.",
        lastFailure);
  }

  private static void pause(Duration pause) {
    try {
      Thread.sleep(pause.toMillis(), pause.toNanosPart() % 1_000_000);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new StoreUnavailableException("Interrupted while settling a manifest write", e);
    }
  }

  /**
   * Where the store's listing is unordered (local file systems), rewrites {@code _versions/latest_version_hint.json}
   * as Lance does after each commit, so that Lance readers probe upward from the new version instead of from the
   * last one a Lance writer recorded. Best effort: the hint is never authoritative, so a failed write is only logged.
   * Off the critical path: the lane calls it after answering, for the newest version it has.
   */
  public void writeVersionHint(long version) {
    if (!location.store().listsUnordered()) {
      return;
    }
    try {
      location.store().putUnflushed(location.key(ManifestNaming.VERSIONS_DIR + "/" + VERSION_HINT),
          ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      LOG.debug("Could not update the version hint of {} to {}: {}", location.uri(""), version, e.toString());
    }
  }

  // ------------------------------------------------------------------------------------------------ versions

  /** Every main-line version present under {@code _versions/} now, ascending. */
  public TableVersions versions() {
    return TableVersions.of(location.store().listDirectory(location.key(ManifestNaming.VERSIONS_DIR)));
  }

  /** Every version in {@code _versions/} with its manifest's URI, size and write time, ascending. */
  public List<VersionFile> versionFiles() {
    String dir = location.key(ManifestNaming.VERSIONS_DIR);
    TreeMap<Long, VersionFile> byVersion = new TreeMap<>();
    for (ObjectInfo info : location.store().list(dir)) {
      manifestName(dir, info).ifPresent(parsed ->
          byVersion.putIfAbsent(parsed.version(), versionFile(parsed, info)));
    }
    return List.copyOf(byVersion.values());
  }

  /**
   * The latest version's manifest, found without listing every version where the store allows it: on stores that
   * list unordered (local file systems, where a listing walks every manifest) upward from
   * {@code latest_version_hint.json}, one HEAD per step, as Lance's own readers do; on stores that list in key order,
   * for a table named by the V2 scheme (whose names sort newest first), from the first keys of a listing; otherwise,
   * or without a usable hint, from a listing of every version. Like Lance's readers it trusts that the versions above
   * the hint are contiguous: versions deleted just above a stale hint could make it answer an older version, which a
   * writer building on it finds out at its commit (a conflict check), never as a wrong answer about a commit.
   */
  public Optional<VersionFile> latestVersionFile() {
    if (location.store().listsUnordered()) {
      OptionalLong hint = readVersionHint();
      Optional<VersionFile> found = hint.isPresent() ? versionFile(hint.getAsLong()) : Optional.empty();
      if (found.isPresent()) {
        for (Optional<VersionFile> next = versionFile(found.get().version() + 1); next.isPresent();
            next = versionFile(found.get().version() + 1)) {
          found = next;
        }
        return found;
      }
    } else {
      Optional<VersionFile> newest = newestV2VersionFile();
      if (newest.isPresent()) {
        return newest;
      }
    }
    List<VersionFile> all = versionFiles();
    return all.isEmpty() ? Optional.empty() : Optional.of(all.get(all.size() - 1));
  }

  /**
   * On a store that lists in key order: the newest version of a table named by the V2 scheme, from the first keys
   * under {@code _versions/} (the V2 name of a later version sorts first; staged manifests of later versions may come
   * before it). Empty when those keys hold no V2 manifest, or any V1 one: then only a whole listing can tell.
   */
  private Optional<VersionFile> newestV2VersionFile() {
    String dir = location.key(ManifestNaming.VERSIONS_DIR);
    for (ObjectInfo info : location.store().listFirst(dir, NEWEST_LISTING_KEYS)) {
      Optional<ManifestNaming.ParsedName> parsed = manifestName(dir, info);
      if (parsed.isPresent()) {
        return parsed.get().scheme() == ManifestNaming.Scheme.V2
            ? Optional.of(versionFile(parsed.get(), info)) : Optional.empty();
      }
    }
    return Optional.empty();
  }

  /** The main-line manifest an object listed under {@code dir} ({@code _versions/}) is, if it is one. */
  private static Optional<ManifestNaming.ParsedName> manifestName(String dir, ObjectInfo info) {
    String name = info.key().substring(dir.length() + 1);
    return name.indexOf('/') >= 0 ? Optional.empty() : ManifestNaming.parse(name);
  }

  private VersionFile versionFile(ManifestNaming.ParsedName parsed, ObjectInfo info) {
    return new VersionFile(parsed.version(), location.store().uriOf(info.key()), info.size(), info.lastModified());
  }

  private OptionalLong readVersionHint() {
    try {
      Optional<byte[]> bytes = location.store().get(location.key(ManifestNaming.VERSIONS_DIR + "/" + VERSION_HINT));
      if (bytes.isEmpty()) {
        return OptionalLong.empty();
      }
      Matcher m = HINT_VERSION.matcher(new String(bytes.get(), StandardCharsets.UTF_8));
      return m.find() ? OptionalLong.of(Long.parseLong(m.group(1))) : OptionalLong.empty();
    } catch (RuntimeException e) { // a hint being rewritten, or of another shape: list instead
      return OptionalLong.empty();
    }
  }

  /** The manifest file of {@code version}, if present. */
  public Optional<ManifestFile> readManifest(long version, ManifestNaming.Scheme scheme) {
    return location.store().get(manifestKey(version, scheme)).map(ManifestFile::decode);
  }

  /**
   * The manifest file of {@code version} whichever naming scheme the table uses, looked up the way Lance resolves a
   * version it is asked for (the V2 name first, then the V1 name), without listing {@code _versions/}.
   */
  public Optional<ManifestFile> readVersion(long version) {
    Optional<ManifestFile> v2 = readManifest(version, ManifestNaming.Scheme.V2);
    return v2.isPresent() ? v2 : readManifest(version, ManifestNaming.Scheme.V1);
  }

  /**
   * The manifest of {@code version} with its size and write time, looked up as Lance resolves a version (the V2 name
   * first, then the V1 name) without listing {@code _versions/}; empty when the version does not exist (or its
   * record was deleted).
   */
  public Optional<VersionFile> versionFile(long version) {
    for (ManifestNaming.Scheme scheme : List.of(ManifestNaming.Scheme.V2, ManifestNaming.Scheme.V1)) {
      Optional<ObjectInfo> info = manifestInfo(version, scheme);
      if (info.isPresent()) {
        return Optional.of(new VersionFile(version, location.store().uriOf(info.get().key()), info.get().size(),
            info.get().lastModified()));
      }
    }
    return Optional.empty();
  }

  /**
   * Deletes the manifest of {@code version} (its record; data files are the cleanup's). Never the version the
   * caller believes latest: that check is the caller's, made against a listing taken after the last commit it knows.
   */
  public void deleteVersion(long version, ManifestNaming.Scheme scheme) {
    location.store().delete(manifestKey(version, scheme));
  }

  /** Size and write time of the manifest of {@code version}, if present. */
  public Optional<ObjectInfo> manifestInfo(long version, ManifestNaming.Scheme scheme) {
    return location.store().head(manifestKey(version, scheme));
  }

  public String manifestUri(long version, ManifestNaming.Scheme scheme) {
    return location.uri(ManifestNaming.path(scheme, version));
  }

  private String manifestKey(long version, ManifestNaming.Scheme scheme) {
    return location.key(ManifestNaming.path(scheme, version));
  }

  // ------------------------------------------------------------------------------------------------ transactions

  /** The transaction that made the version of {@code file}: its inline copy, else the {@code .txn} file it names. */
  public VersionTransaction lookupTransaction(ManifestFile file) {
    return lookupTransaction(new ManifestFile.TransactionPart(file.version(), file.manifest().getTransactionFile(),
        file.transaction()));
  }

  /** {@link #lookupTransaction(ManifestFile)} from the part of a manifest file that names its transaction. */
  public VersionTransaction lookupTransaction(ManifestFile.TransactionPart file) {
    if (file.transaction().isPresent()) {
      return new VersionTransaction(VersionTransaction.Source.INLINE, file.transaction().get(), "", null);
    }
    String name = file.transactionFile();
    if (name.isEmpty()) {
      return new VersionTransaction(VersionTransaction.Source.NO_TRANSACTION, null, name, null);
    }
    if (TransactionFiles.parse(name).isEmpty() || name.indexOf('/') >= 0) {
      return new VersionTransaction(VersionTransaction.Source.INVALID_FILE_NAME, null, name, null);
    }
    Optional<byte[]> bytes = location.store().get(location.key(TransactionFiles.TRANSACTIONS_DIR + "/" + name));
    if (bytes.isEmpty()) {
      return new VersionTransaction(VersionTransaction.Source.MISSING_FILE, null, name, null);
    }
    try {
      return new VersionTransaction(VersionTransaction.Source.FILE, TransactionFiles.decode(bytes.get()), name, null);
    } catch (CorruptManifestException e) {
      return new VersionTransaction(VersionTransaction.Source.UNREADABLE_FILE, null, name, e);
    }
  }

  /**
   * The transaction that made the version of {@code file}. Lance writers fail on a version that has none, so this
   * does too.
   *
   * @throws StoreException when it has none, or its file is missing
   * @throws CorruptManifestException when its file is unreadable
   */
  public Transaction transactionOf(ManifestFile file) {
    return lookupTransaction(file).require(file.manifest().getVersion(), location.uri(""));
  }

  /** True when {@code version} exists and was made by the transaction {@code uuid} (or a group naming it). */
  public boolean madeBy(TableSnapshot base, long version, String uuid) {
    Transaction cached = base.knownTransaction(version);
    if (cached != null) {
      return GroupMembers.madeBy(cached, uuid);
    }
    return madeBy(version, base.scheme(), uuid);
  }

  private boolean madeBy(long version, ManifestNaming.Scheme scheme, String uuid) {
    return readManifest(version, scheme).map(f -> transactionOf(f).getUuid().equals(uuid)).orElse(false);
  }

  /** The transaction of {@code version} of {@code base} (memoized, being written, or read), if it exists. */
  public Optional<Transaction> transactionAt(TableSnapshot base, long version) {
    Transaction known = base.knownTransaction(version);
    if (known != null) {
      return Optional.of(known);
    }
    return readManifest(version, base.scheme()).map(this::transactionOf);
  }

  /** The transactions of every version of {@code base} after {@code readVersion}, ascending. */
  public List<CommittedTransaction> committedSince(TableSnapshot base, long readVersion) {
    List<CommittedTransaction> since = new ArrayList<>();
    // Versions before the first never existed in this table (a clone starts at its source's version number).
    for (long v = Math.max(readVersion + 1, base.firstVersion()); v <= base.latestVersion(); v++) {
      Transaction txn = base.knownTransaction(v);
      if (txn == null) {
        long version = v;
        // A version record deleted (version/delete, retention) after the transaction's read version: its
        // transaction is gone, so the transaction cannot be checked against it and must be rebuilt.
        ManifestFile file = readManifest(v, base.scheme()).orElseThrow(() -> new InvalidTransactionException(
            "read_version " + readVersion + " is older than version " + version + ", whose record was deleted; the "
                + "transaction cannot be checked against it: rebuild it on version " + base.latestVersion()));
        txn = transactionOf(file);
        base.recent.remember(v, txn);
      }
      since.add(new CommittedTransaction(v, txn));
    }
    return since;
  }

  // ------------------------------------------------------------------------------------------------ auxiliary files

  /** The bytes of a deletion file ({@code _deletions/...}, relative to the table root), if present. */
  public Optional<byte[]> readDeletionFile(String path) {
    return location.store().get(location.key(requireDeletionPath(path)));
  }

  /** Writes deletion files (paths relative to the table root, all under {@code _deletions/}); plain puts. */
  public void writeDeletionFiles(Map<String, byte[]> files) {
    files.forEach((path, bytes) -> location.store().put(location.key(requireDeletionPath(path)), bytes));
  }

  private static String requireDeletionPath(String path) {
    if (!path.startsWith(DeletionVectors.DELETIONS_DIR + "/")) {
      throw new IllegalArgumentException("'" + path + "' is not a deletion file path");
    }
    return path;
  }

  /** A manifest staged under {@code _versions/{name}} by a client using namespace-managed versioning, if present. */
  public Optional<byte[]> readStagedManifest(String name) {
    return location.store().get(stagedKey(name));
  }

  /** Removes a staged manifest (never a version's own manifest). */
  public void deleteStagedManifest(String name) {
    location.store().delete(stagedKey(name));
  }

  private String stagedKey(String name) {
    if (name.indexOf('/') >= 0 || ManifestNaming.parse(name).isPresent() || name.equals(VERSION_HINT)) {
      throw new IllegalArgumentException("'" + name + "' is not the name of a staged manifest");
    }
    return location.key(ManifestNaming.VERSIONS_DIR + "/" + name);
  }
}
