package dev.lancecommit.rules.rebase;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.TransactionValidator;
import dev.lancecommit.rules.conflict.CommitConflictException;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.conflict.ConflictOutcome;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * The rebase against real Lance Java 7.0.0: our Delete is built by stock Lance from version 1 (its own deletion
 * file), stock Lance commits a concurrent delete of other rows of the same fragment, then our transaction is
 * checked, rebased, its files written and the next manifest built and written the way the commit lane does it.
 * Stock Lance must then see both deletes, and build its own deletes on top of our merged deletion file.
 */
class RebaseOracleTest {
  @TempDir Path dir;

  private static List<String> manifestNames(Path root) {
    try (Stream<Path> files = Files.list(root.resolve(ManifestNaming.VERSIONS_DIR))) {
      return files.map(p -> p.getFileName().toString()).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static ManifestFile manifestFile(Path root, long version) {
    try {
      ManifestNaming.Scheme scheme = ManifestNaming.schemeOf(manifestNames(root));
      return ManifestFile.decode(Files.readAllBytes(root.resolve(ManifestNaming.path(scheme, version))));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The commit lane in miniature: versions after the read version, check, rebase, write files, build, write. */
  private static TableState commitWithRebase(Path root, LanceTables table, Transaction ours,
      Roaring64NavigableMap affected) throws IOException {
    long latestVersion = table.latestVersion();
    List<CommittedTransaction> since = new ArrayList<>();
    for (long v = ours.getReadVersion() + 1; v <= latestVersion; v++) {
      since.add(new CommittedTransaction(v, manifestFile(root, v).transaction().orElseThrow()));
    }
    RebaseInputs inputs = RebaseInputs.builder().affectedRows(affected)
        .initialFragments(manifestFile(root, ours.getReadVersion()).manifest().getFragmentsList()).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(ours, since, inputs);
    assertThat(outcome.kind()).as(outcome.reason()).isEqualTo(Kind.REBASE);
    TableState latest = manifestFile(root, latestVersion).tableState();

    RebasePlan plan = DeletionRebase.rebase(ours, outcome, inputs, latest, fragment -> {
      try {
        return DeletionVectors.read(fragment,
            Files.readAllBytes(root.resolve(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile()))));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    });
    for (Map.Entry<String, byte[]> file : plan.filesToWrite().entrySet()) {
      Files.write(root.resolve(file.getKey()), file.getValue(), StandardOpenOption.CREATE_NEW);
    }
    Transaction txn = plan.transaction();
    TransactionValidator.validate(txn, latest);
    TableState next = ManifestBuilder.build(latest, txn, CommitContext.of(latestVersion + 1, Instant.now(),
        TransactionFiles.fileName(txn), WriterVersions.coordinator()));
    Files.write(root.resolve(TransactionFiles.path(txn)), TransactionFiles.encode(txn));
    Files.write(root.resolve(ManifestNaming.path(ManifestNaming.schemeOf(manifestNames(root)), next.version())),
        ManifestFile.of(next, Optional.of(txn)).encode(), StandardOpenOption.CREATE_NEW);
    return next;
  }

  private static List<Long> idsWithout(int total, RoaringBitmap deleted) {
    List<Long> ids = new ArrayList<>();
    for (long id = 0; id < total; id++) {
      if (!deleted.contains((int) id)) {
        ids.add(id);
      }
    }
    return ids;
  }

  private static RoaringBitmap deletionVector(Path root, DataFragment fragment) throws IOException {
    return DeletionVectors.read(fragment, Files.readAllBytes(
        root.resolve(DeletionVectors.relativePath(fragment.getId(), fragment.getDeletionFile()))));
  }

  /** Our Delete of {@code offsets} of fragment 0, built by stock Lance from version 1 but not committed. */
  private static Transaction lanceBuiltDelete(LanceTables table, int... offsets) {
    List<Integer> rows = new ArrayList<>();
    for (int offset : offsets) {
      rows.add(offset);
    }
    FragmentMetadata withDeletions;
    try (Dataset v1 = table.open(1)) {
      withDeletions = new Fragment(v1, 0).deleteRows(rows);
    }
    return TransactionFactory.delete(1, List.of(LanceProtos.fragment(withDeletions)), List.of(), "ours");
  }

  @Test
  void ourDeleteRebasedOverStockLancesDeleteIsReadAndExtendedByStockLance() throws IOException {
    Path root = dir.resolve("rebase.lance");
    try (LanceTables table = LanceTables.local(root)) {
      table.createWithLance(0, 100);
      Transaction ours = lanceBuiltDelete(table, 1, 2);
      try (Dataset ds = table.open()) {
        ds.delete("id >= 90");
      }
      assertThat(table.latestVersion()).isEqualTo(2);

      TableState v3 = commitWithRebase(root, table, ours, MemoryTable.addresses(0, 1, 2));
      assertThat(v3.version()).isEqualTo(3);

      RoaringBitmap expected = RoaringBitmap.bitmapOf(1, 2);
      expected.add(90L, 100L);
      DataFragment fragment = v3.manifest().getFragments(0);
      assertThat(fragment.getDeletionFile().getReadVersion()).isEqualTo(2);
      assertThat(deletionVector(root, fragment)).isEqualTo(expected);
      assertThat(table.latestVersion()).isEqualTo(3);
      assertThat(table.countRows(3)).isEqualTo(88);
      assertThat(table.readIds(3)).isEqualTo(idsWithout(100, expected));
      try (Dataset ds = table.open(3)) {
        assertThat(ds.readTransaction().map(t -> {
          try (t) {
            return t.operation().name();
          }
        })).contains("Delete");
      }

      // stock Lance reads our merged .bin when it adds its own deletions
      try (Dataset ds = table.open()) {
        ds.delete("id = 50");
      }
      expected.add(50);
      assertThat(deletionVector(root, manifestFile(root, 4).manifest().getFragments(0))).isEqualTo(expected);
      assertThat(table.readIds(4)).isEqualTo(idsWithout(100, expected));
    }
  }

  @Test
  void deletingARowStockLanceAlreadyDeletedIsRetryableAndLeavesTheTableAlone() throws IOException {
    Path root = dir.resolve("clash.lance");
    try (LanceTables table = LanceTables.local(root)) {
      table.createWithLance(0, 100);
      Transaction ours = lanceBuiltDelete(table, 3, 95);
      try (Dataset ds = table.open()) {
        ds.delete("id >= 90");
      }
      long deletionFiles;
      try (Stream<Path> files = Files.list(root.resolve(DeletionVectors.DELETIONS_DIR))) {
        deletionFiles = files.count();
      }

      assertThatThrownBy(() -> commitWithRebase(root, table, ours, MemoryTable.addresses(0, 3, 95)))
          .isInstanceOfSatisfying(CommitConflictException.class, e -> {
            assertThat(e.retryable()).isTrue();
            assertThat(e.conflictingVersion()).isEqualTo(2);
          })
          .hasMessageContaining("both modified rows at addresses [95]");
      assertThat(table.latestVersion()).isEqualTo(2);
      try (Stream<Path> files = Files.list(root.resolve(DeletionVectors.DELETIONS_DIR))) {
        assertThat(files.count()).isEqualTo(deletionFiles);
      }
    }
  }
}
