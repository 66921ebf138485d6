package dev.lancecommit.chaos.differential;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * Two writers delete rows of the same fragment from the same read version, each writing its own deletion file with
 * stock Lance and sending the Delete with the row addresses it touched ({@code affected_rows}). As in Lance's own
 * commit loop ({@code TransactionRebase}), different rows must both be deleted (the second is rebased: its deletion
 * vector is merged with the one committed meanwhile) and the same rows must make the second retryable.
 */
class ConcurrentDeletesTest {
  private static final int ROWS = 10;

  @TempDir
  static Path work;

  private static RunningCoordinator coordinator;

  @BeforeAll
  static void startCoordinator() {
    coordinator = RunningCoordinator.start(work.resolve("warehouse"));
  }

  @AfterAll
  static void stopCoordinator() {
    if (coordinator != null) {
      coordinator.close();
    }
  }

  /** A Delete of {@code offsets} of fragment 0 as a writer at {@code readVersion} builds it, with its row addresses. */
  private record WriterDelete(Transaction transaction, byte[] affectedRows) {}

  @Test
  void deletesOfDifferentRowsOfOneFragmentBothCommit() {
    Path dir = coordinator.newTableDir("deletes-different");
    try (LanceTables table = LanceTables.local(dir)) {
      table.createWithLance(0, ROWS);
      List<String> id = coordinator.register(dir);
      WriterDelete a = delete(table, 1, List.of(1, 2));
      WriterDelete b = delete(table, 1, List.of(5, 6));

      CommitApi.Response first = commit(id, a);
      assertThat(first.status()).as("first delete: %s", first).isEqualTo(200);
      assertThat(first.version()).isEqualTo(2);
      CommitApi.Response second = commit(id, b);
      assertThat(second.status())
          .as("second delete of other rows of the same fragment must be rebased and commit, as Lance does: %s",
              second)
          .isEqualTo(200);
      assertThat(second.version()).isEqualTo(3);

      assertThat(table.latestVersion()).isEqualTo(3);
      assertThat(table.readIds(3)).containsExactlyInAnyOrder(0L, 3L, 4L, 7L, 8L, 9L);
      assertThat(table.readIds(2)).containsExactlyInAnyOrder(0L, 3L, 4L, 5L, 6L, 7L, 8L, 9L);
    }
  }

  @Test
  void deletesOfTheSameRowsMakeTheSecondRetryable() {
    Path dir = coordinator.newTableDir("deletes-same");
    try (LanceTables table = LanceTables.local(dir)) {
      table.createWithLance(0, ROWS);
      List<String> id = coordinator.register(dir);
      WriterDelete a = delete(table, 1, List.of(1, 2));
      WriterDelete b = delete(table, 1, List.of(2, 3));

      assertThat(commit(id, a).status()).isEqualTo(200);
      CommitApi.Response second = commit(id, b);
      assertThat(second.status()).as("%s", second).isEqualTo(409);
      assertThat(second.code()).as("%s", second).isEqualTo(14);

      assertThat(table.latestVersion()).isEqualTo(2);
      assertThat(table.readIds(2)).containsExactlyInAnyOrderElementsOf(
          LongStream.range(0, ROWS).filter(i -> i != 1 && i != 2).boxed().toList());
    }
  }

  @Test
  void withoutAffectedRowsAnOverlappingDeleteIsRetryable() {
    Path dir = coordinator.newTableDir("deletes-blind");
    try (LanceTables table = LanceTables.local(dir)) {
      table.createWithLance(0, ROWS);
      List<String> id = coordinator.register(dir);
      WriterDelete a = delete(table, 1, List.of(1, 2));
      WriterDelete b = delete(table, 1, List.of(5, 6));

      assertThat(commit(id, a).status()).isEqualTo(200);
      CommitApi.Response second = coordinator.commit(id, b.transaction().toByteArray(), Optional.empty());
      assertThat(second.status()).as("%s", second).isEqualTo(409);
      assertThat(second.code()).as("%s", second).isEqualTo(14);
      assertThat(table.readIds(table.latestVersion())).hasSize(ROWS - 2);
    }
  }

  private static CommitApi.Response commit(List<String> id, WriterDelete delete) {
    return coordinator.commit(id, delete.transaction().toByteArray(), Optional.of(delete.affectedRows()));
  }

  /** What a writer does: open its read version, let Lance write the deletion file, build the Delete. */
  private static WriterDelete delete(LanceTables table, long readVersion, List<Integer> offsets) {
    try (Dataset ds = table.open(readVersion)) {
      FragmentMetadata updated = ds.getFragment(0).deleteRows(offsets);
      Transaction txn = TransactionFactory.delete(readVersion, List.of(LanceProtos.fragment(updated)), List.of(),
          "_rowoffset IN " + offsets);
      Roaring64NavigableMap rows = new Roaring64NavigableMap();
      for (int offset : offsets) {
        rows.addLong(RowAddresses.of(0, offset));
      }
      return new WriterDelete(txn, RowAddresses.portable(rows));
    }
  }
}
