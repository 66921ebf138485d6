package dev.lancecommit.coordinator.table;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.pb.Transaction;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The versions, manifests and transactions of one table on its store. Blocking: call it from worker threads.
 * Versions are found the way Lance finds them, by listing {@code _versions/} and parsing both naming schemes.
 */
public final class TableStorage {
  static final String VERSIONS_DIR = "_versions";
  static final String TRANSACTIONS_DIR = "_transactions";
  /** Lance's best-effort pointer to the latest version, {@code {"version":N}}, kept on unordered stores. */
  static final String VERSION_HINT = "latest_version_hint.json";
  private static final Logger LOG = LoggerFactory.getLogger(TableStorage.class);

  private final StorageLocation location;

  public TableStorage(StorageLocation location) {
    this.location = location;
  }

  public StorageLocation location() {
    return location;
  }

  /** Every main-line version present under {@code _versions/}, ascending, and the naming scheme they use. */
  public VersionListing listVersions() {
    List<String> names = location.store().listDirectory(location.key(VERSIONS_DIR));
    List<ManifestNaming.ParsedName> parsed = new ArrayList<>();
    for (String name : names) {
      ManifestNaming.parse(name).ifPresent(parsed::add);
    }
    parsed.sort((a, b) -> Long.compareUnsigned(a.version(), b.version()));
    Optional<ManifestNaming.Scheme> scheme =
        parsed.isEmpty() ? Optional.empty() : Optional.of(ManifestNaming.schemeOf(names));
    return new VersionListing(parsed.stream().map(ManifestNaming.ParsedName::version).toList(), scheme);
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
   * The transaction that produced {@code version}: the inline copy, else the {@code .txn} file the manifest names.
   * Lance writers fail on a version that has neither, so this does too.
   */
  public Transaction transactionOf(ManifestFile file) {
    if (file.transaction().isPresent()) {
      return file.transaction().get();
    }
    String txnFile = file.manifest().getTransactionFile();
    if (txnFile.isEmpty()) {
      throw new StoreException(
          "Version " + file.manifest().getVersion() + " of " + location.uri("") + " has no transaction");
    }
    byte[] bytes =
        location.store().get(location.key(TRANSACTIONS_DIR + "/" + txnFile))
            .orElseThrow(() -> new StoreException(
                "Transaction file " + txnFile + " of version " + file.manifest().getVersion() + " is missing"));
    return TransactionFiles.decode(bytes);
  }

  public TableState stateOf(ManifestFile file) {
    return new TableState(file.manifest(), file.indices());
  }

  /** Writes {@code _transactions/{read_version}-{uuid}.txn}; plain put, like Lance, before the manifest. */
  public String writeTransactionFile(Transaction txn) {
    String name = TransactionFiles.fileName(txn);
    location.store().put(location.key(TRANSACTIONS_DIR + "/" + name), TransactionFiles.encode(txn));
    return name;
  }

  /**
   * Writes the manifest of {@code version} if nobody has.
   *
   * @throws ObjectAlreadyExistsException when the version is taken
   */
  public void createManifest(long version, ManifestNaming.Scheme scheme, byte[] file) {
    location.store().putIfAbsent(manifestKey(version, scheme), file);
  }

  /**
   * Where the store's listing is unordered (local file systems), rewrites {@code _versions/latest_version_hint.json}
   * as Lance does after each commit, so that Lance readers probe upward from the new version instead of from the
   * last one a Lance writer recorded. Best effort: the hint is never authoritative, so a failed write is only logged.
   */
  public void writeVersionHint(long version) {
    if (!location.store().listsUnordered()) {
      return;
    }
    try {
      location.store().put(location.key(VERSIONS_DIR + "/" + VERSION_HINT),
          ("{\"version\":" + version + "}").getBytes(StandardCharsets.UTF_8));
    } catch (RuntimeException e) {
      LOG.debug("Could not update the version hint of {} to {}: {}", location.uri(""), version, e.toString());
    }
  }

  public String manifestUri(long version, ManifestNaming.Scheme scheme) {
    return location.uri(VERSIONS_DIR + "/" + ManifestNaming.fileName(scheme, version));
  }

  private String manifestKey(long version, ManifestNaming.Scheme scheme) {
    return location.key(VERSIONS_DIR + "/" + ManifestNaming.fileName(scheme, version));
  }

  /** What {@link #listVersions()} found. */
  public record VersionListing(List<Long> versions, Optional<ManifestNaming.Scheme> scheme) {
    public Optional<Long> latest() {
      return versions.isEmpty() ? Optional.empty() : Optional.of(versions.get(versions.size() - 1));
    }

    /** The oldest version present: 1 for most tables, the source's version for a clone, later after a cleanup. */
    public Optional<Long> first() {
      return versions.isEmpty() ? Optional.empty() : Optional.of(versions.get(0));
    }
  }
}
