package dev.lancecommit.rules;

import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * The commit path in miniature, on a local table directory: read the latest manifest, validate, build the next
 * manifest, write {@code _transactions/*.txn} and then {@code _versions/*.manifest} (create-new, the same naming
 * scheme as the table's). Test-only: the real I/O lives in the coordinator.
 */
final class LocalCommitter {
  private final Path root;

  LocalCommitter(Path root) {
    this.root = root;
  }

  /** The latest version of the table, or null when it has none. */
  TableState latest() {
    List<String> names = manifestNames();
    OptionalLong latest = ManifestNaming.latest(names);
    if (latest.isEmpty()) {
      return null;
    }
    ManifestNaming.Scheme scheme = ManifestNaming.schemeOf(names, ManifestNaming.DEFAULT_FOR_NEW_TABLES);
    return read(latest.getAsLong(), scheme);
  }

  TableState read(long version) {
    return read(version, ManifestNaming.schemeOf(manifestNames(), ManifestNaming.DEFAULT_FOR_NEW_TABLES));
  }

  private TableState read(long version, ManifestNaming.Scheme scheme) {
    try {
      byte[] bytes = Files.readAllBytes(root.resolve(ManifestNaming.path(scheme, version)));
      return ManifestFile.decode(bytes).tableState();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  TableState commit(Transaction txn) {
    return commit(txn, false);
  }

  /** Validates and applies {@code txn} on the latest version and writes the result as the next version. */
  TableState commit(Transaction txn, boolean newTableUsesStableRowIds) {
    TableState current = latest();
    TransactionValidator.validate(txn, current);
    CommitContext ctx = new CommitContext(current == null ? 1 : current.version() + 1, Instant.now(),
        TransactionFiles.fileName(txn), WriterVersions.coordinator(), newTableUsesStableRowIds,
        CommitContext.DEFAULT_STORAGE_VERSION);
    TableState next = ManifestBuilder.build(current, txn, ctx);
    write(txn, next);
    return next;
  }

  /** Writes a built version: the transaction file, then the manifest (never overwriting one). */
  void write(Transaction txn, TableState next) {
    ManifestNaming.Scheme scheme = ManifestNaming.schemeOf(manifestNames(), ManifestNaming.DEFAULT_FOR_NEW_TABLES);
    try {
      Files.createDirectories(root.resolve(TransactionFiles.TRANSACTIONS_DIR));
      Files.write(root.resolve(TransactionFiles.path(txn)), TransactionFiles.encode(txn));
      Files.createDirectories(root.resolve(ManifestNaming.VERSIONS_DIR));
      Files.write(root.resolve(ManifestNaming.path(scheme, next.version())),
          ManifestFile.of(next, Optional.of(txn)).encode(), StandardOpenOption.CREATE_NEW);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private List<String> manifestNames() {
    Path versions = root.resolve(ManifestNaming.VERSIONS_DIR);
    if (!Files.isDirectory(versions)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(versions)) {
      return files.map(p -> p.getFileName().toString()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
