package dev.lancecommit.chaos.bench;

import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.deletion.NewDeletionFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile.DeletionFileType;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.group.GroupBuilder;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Fork;
import org.openjdk.jmh.annotations.Measurement;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.Warmup;
import org.roaringbitmap.RoaringBitmap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * The CPU the lane's {@link GroupBuilder} spends deciding and building one version from a group of {@code members}
 * transactions, as the table grows: each offered, checked (against nothing committed since, as when writers keep
 * up) and the group built into the next table state. {@code update}: each member an Update (REWRITE_ROWS) that
 * replaces one one-row fragment of its own with a new one, with its row's address as {@code affected_rows}, as the
 * upserts cell's writers send once their keys live in fragments of their own. {@code update-shared}: each member an
 * Update that deletes a row of its own from the table's first fragment (256 rows, shared by all) and moves it to a
 * new fragment, so that every member after the first is rebased over the ones before it (their deletion vectors
 * merged), as the upserts cell's writers send while their keys live in the fragments the table was created with.
 * {@code append}: each member an Append of one one-row fragment, for comparison. No I/O.
 *
 * <pre>
 * java -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" org.openjdk.jmh.Main GroupBuildBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class GroupBuildBenchmark {
  private static final GroupBuilder.Limits LIMITS = new GroupBuilder.Limits(64, 1L << 30);
  private static final int SHARED_ROWS = 256;

  @Param({"320", "10000", "100000"})
  public int fragments;

  @Param({"1", "11"})
  public int members;

  @Param({"update", "update-shared", "append"})
  public String operation;

  private TableState table;
  private List<GroupBuilder.Candidate> candidates;
  private GroupBuilder.History history;

  @Setup
  public void setUp() {
    Transaction creation = VersionBuildBenchmark.creation(fragments);
    Transaction.Overwrite.Builder overwrite = creation.getOverwrite().toBuilder();
    overwrite.setFragments(0, overwrite.getFragments(0).toBuilder().setPhysicalRows(SHARED_ROWS));
    table = ManifestBuilder.build(null, creation.toBuilder().setOverwrite(overwrite).build(),
        VersionBuildBenchmark.context(1));
    history = new GroupBuilder.History() {
      @Override
      public List<CommittedTransaction> committedSince(long readVersion) {
        return List.of();
      }

      @Override
      public Optional<TableState> stateAt(long version) {
        return Optional.of(table);
      }

      @Override
      public RoaringBitmap deletionVector(DataFragment fragment) {
        return new RoaringBitmap();
      }
    };
    List<DataFragment> existing = table.manifest().getFragmentsList();
    candidates = new ArrayList<>();
    for (int m = 0; m < members; m++) {
      DataFragment fresh = VersionBuildBenchmark.newFragment(fragments + m);
      Transaction.Builder txn = Transaction.newBuilder().setReadVersion(1).setUuid(UUID.randomUUID().toString());
      Optional<byte[]> affected = Optional.empty();
      if (operation.equals("update-shared")) {
        DataFragment shared = existing.get(0);
        NewDeletionFile deletion = DeletionVectors.encode(shared.getId(), 1, m + 1, DeletionFileType.BITMAP,
            RoaringBitmap.bitmapOf(m));
        txn.setUpdate(Transaction.Update.newBuilder()
            .addUpdatedFragments(shared.toBuilder().setDeletionFile(deletion.meta())).addNewFragments(fresh)
            .addFieldsModified(1).setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS));
        Roaring64NavigableMap rows = new Roaring64NavigableMap();
        rows.addLong(shared.getId() << 32 | m);
        affected = Optional.of(UpsertWorkload.portable(rows));
      } else if (operation.equals("update")) {
        long replaced = existing.get((int) ((long) m * existing.size() / members)).getId();
        txn.setUpdate(Transaction.Update.newBuilder().addRemovedFragmentIds(replaced).addNewFragments(fresh)
            .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS));
        Roaring64NavigableMap rows = new Roaring64NavigableMap();
        rows.addLong(replaced << 32);
        affected = Optional.of(UpsertWorkload.portable(rows));
      } else {
        txn.setAppend(Transaction.Append.newBuilder().addFragments(fresh));
      }
      Transaction built = txn.build();
      candidates.add(new GroupBuilder.Candidate(built, affected, true, true, built.getSerializedSize()));
    }
  }

  @Benchmark
  public GroupBuilder.Built offerAndBuild() {
    GroupBuilder group = new GroupBuilder(table, 1, LIMITS, FormatFeatures.standard(), history,
        (version, recorded) -> VersionBuildBenchmark.context(version));
    for (GroupBuilder.Candidate candidate : candidates) {
      if (!(group.offer(candidate) instanceof GroupBuilder.Verdict.Joined)) {
        throw new IllegalStateException("a member did not join the group");
      }
    }
    return group.build("group-" + members, Map.of());
  }
}
