package dev.lancecommit.chaos.bench;

import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
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

/**
 * The CPU a version costs the lane besides its I/O, as the table grows: the next manifest built from a group's Append
 * ({@link ManifestBuilder#build}) and its file encoded with the fragments the version before carried
 * ({@link ManifestFile#encode}), on a table of {@code fragments} one-file fragments built by the coordinator itself
 * (normalized, its fragments encoded once), as in the 16-writer appends cell, whose table reaches about 25,000
 * fragments in its window. Every invocation builds on the same table, so it measures one version at that size.
 *
 * <pre>
 * java -cp "chaos-tests/target/chaos-tests.jar:chaos-tests/target/lib/*" org.openjdk.jmh.Main VersionBuildBenchmark
 * </pre>
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MICROSECONDS)
@Warmup(iterations = 5, time = 2)
@Measurement(iterations = 5, time = 2)
@Fork(1)
public class VersionBuildBenchmark {
  private static final Manifest.WriterVersion WRITER =
      Manifest.WriterVersion.newBuilder().setLibrary("lance").setVersion("0.39.0").build();
  private static final Instant NOW = Instant.parse("2026-12-04T20:00:00Z");

  @Param({"10", "1000", "25000", "100000"})
  public int fragments;

  /** Members of the group: one new one-file fragment each. */
  @Param({"8"})
  public int members;

  private TableState table;
  private Transaction group;
  private CommitContext next;

  @Setup
  public void setUp() {
    Transaction create = creation(fragments);
    TableState created = ManifestBuilder.build(null, create, context(1));
    // One version on top of it, so that the measured one builds on a normalized state whose fragments were encoded.
    TableState second = ManifestBuilder.build(created, append(1, fragments), context(2));
    new ManifestFile(created.manifest(), created.indices(), Optional.of(create)).encode(created.encodeFragments(null));
    new ManifestFile(second.manifest(), second.indices(), Optional.empty()).encode(second.encodeFragments(created));
    table = second;
    group = append(2, fragments + members);
    next = context(3);
  }

  @Benchmark
  public byte[] buildAndEncode() {
    TableState built = ManifestBuilder.build(table, group, next);
    return new ManifestFile(built.manifest(), built.indices(), Optional.of(group)).encode(built.encodeFragments(table));
  }

  @Benchmark
  public TableState build() {
    return ManifestBuilder.build(table, group, next);
  }

  private Transaction append(long readVersion, int firstName) {
    Transaction.Append.Builder append = Transaction.Append.newBuilder();
    for (int i = 0; i < members; i++) {
      append.addFragments(newFragment(firstName + i));
    }
    return Transaction.newBuilder().setReadVersion(readVersion).setUuid(UUID.randomUUID().toString())
        .setAppend(append).build();
  }

  /** The Overwrite that creates a table of {@code fragments} one-file, one-row fragments ({@link #newFragment}). */
  static Transaction creation(int fragments) {
    List<DataFragment> initial = new ArrayList<>(fragments);
    for (int i = 0; i < fragments; i++) {
      initial.add(newFragment(i));
    }
    return Transaction.newBuilder().setReadVersion(0).setUuid(UUID.randomUUID().toString())
        .setOverwrite(Transaction.Overwrite.newBuilder()
            .addSchema(field(0, "id", "int64")).addSchema(field(1, "value", "string"))
            .addAllFragments(initial))
        .build();
  }

  static CommitContext context(long version) {
    return new CommitContext(version, NOW, version + "-" + UUID.randomUUID() + ".txn", WRITER, false, "2.1");
  }

  private static Field field(int id, String name, String type) {
    return Field.newBuilder().setId(id).setParentId(-1).setName(name).setLogicalType(type).setNullable(true).build();
  }

  /** A fragment as a writer sends it: id 0 (the builder assigns one), one data file with both fields, one row. */
  static DataFragment newFragment(int name) {
    DataFile file = DataFile.newBuilder().setPath("data/" + new UUID(0, name) + ".lance")
        .setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(1_100)
        .addFields(0).addFields(1).addColumnIndices(0).addColumnIndices(1).build();
    return DataFragment.newBuilder().setPhysicalRows(1).addFiles(file).build();
  }
}
