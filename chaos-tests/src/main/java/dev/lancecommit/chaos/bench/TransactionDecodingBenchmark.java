package dev.lancecommit.chaos.bench;

import dev.lancecommit.coordinator.commit.TransactionDecoding;
import dev.lancecommit.format.MisencodedFields;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
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

/**
 * What every commit's transaction costs before its lane sees it: the bytes parsed and walked for fields sent with
 * another wire type than Lance declares ({@link TransactionDecoding#decode}, whose walk is
 * {@link MisencodedFields#in}). An Update of {@code fragments} fragments, each with two data files and a deletion
 * file, and as many new one-file fragments: 1 is the upserts cell's transaction, 10,000 a large rewrite.
 *
 * <pre>
 * java -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" org.openjdk.jmh.Main TransactionDecodingBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 1)
@Measurement(iterations = 5, time = 1)
@Fork(1)
public class TransactionDecodingBenchmark {
  @Param({"1", "100", "10000"})
  public int fragments;

  private byte[] bytes;
  private Transaction transaction;

  @Setup
  public void setUp() {
    Transaction.Update.Builder update = Transaction.Update.newBuilder();
    for (int i = 0; i < fragments; i++) {
      update.addRemovedFragmentIds(1_000_000L + i);
      update.addUpdatedFragments(DataFragment.newBuilder().setId(i).setPhysicalRows(100)
          .addFiles(DataFile.newBuilder().setPath("data/" + i + "-a.lance").addAllFields(List.of(0, 1))
              .addAllColumnIndices(List.of(0, 1)).setFileMajorVersion(2).setFileMinorVersion(0).setFileSizeBytes(4096))
          .addFiles(DataFile.newBuilder().setPath("data/" + i + "-b.lance").addFields(2).addColumnIndices(0)
              .setFileMajorVersion(2).setFileSizeBytes(2048))
          .setDeletionFile(DeletionFile.newBuilder().setId(i).setReadVersion(7).setNumDeletedRows(1)));
      update.addNewFragments(DataFragment.newBuilder().setId(fragments + i).setPhysicalRows(1)
          .addFiles(DataFile.newBuilder().setPath("data/" + i + "-n.lance").addAllFields(List.of(0, 1, 2))
              .addAllColumnIndices(List.of(0, 1, 2)).setFileMajorVersion(2).setFileSizeBytes(1024)));
    }
    transaction = Transaction.newBuilder().setReadVersion(7).setUuid(UUID.randomUUID().toString())
        .putTransactionProperties("writer", "bench").setUpdate(update).build();
    bytes = transaction.toByteArray();
  }

  @Benchmark
  public Transaction decode() {
    return TransactionDecoding.decode(bytes);
  }

  @Benchmark
  public List<String> misencodedFields() {
    return MisencodedFields.in(transaction);
  }
}
