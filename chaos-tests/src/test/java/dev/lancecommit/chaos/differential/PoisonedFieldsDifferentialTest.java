package dev.lancecommit.chaos.differential;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.format.RulesException;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.UnaryOperator;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.TestFactory;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14, part 3, with stock Lance as the oracle: every field of a real Lance transaction that could make a version
 * unreadable is damaged in turn. The oracle is stock Lance reading the version those fields make: the manifest is
 * built from the damaged transaction by the coordinator's own {@link ManifestBuilder} (the pure part of the commit
 * path, before any check) and written beside the table's files, then Lance, in a child JVM ({@link LanceReadProbe}:
 * some damage makes lance-core abort the process), opens it as a Java user would: lists fragments and indices, counts
 * and scans every row, scans again with a filter an index may serve. Whatever Lance cannot read, the coordinator must refuse (4xx, nothing
 * written); whatever Lance reads, the coordinator commits, unless {@link Poison#stricterBecause} says why it is
 * refused anyway. Where the builder itself refuses the damage, the damaged field is written into the manifest built
 * from the undamaged transaction instead ({@link Poison#inManifest}), so Lance still decides.
 */
class PoisonedFieldsDifferentialTest {

  @TempDir
  static Path work;

  private static OperationStage stage;
  private static RunningCoordinator coordinator;
  private static final List<String> MATRIX = new ArrayList<>();

  /** One damaged field: how to damage the transaction, and (when the builder refuses that) the manifest. */
  record Poison(String name, LanceOperation operation, UnaryOperator<Transaction> damage,
      UnaryOperator<Manifest> inManifest, String stricterBecause) {
    Poison(String name, LanceOperation operation, UnaryOperator<Transaction> damage) {
      this(name, operation, damage, null, null);
    }

    Poison stricter(String because) {
      return new Poison(name, operation, damage, inManifest, because);
    }

    Poison orInManifest(UnaryOperator<Manifest> manifest) {
      return new Poison(name, operation, damage, manifest, stricterBecause);
    }
  }

  @BeforeAll
  static void stage() {
    stage = OperationStage.build(work.resolve("stage"), EnumSet.of(LanceOperation.APPEND, LanceOperation.DELETE_ROWS,
        LanceOperation.CREATE_INDEX, LanceOperation.UPDATE_COLUMNS, LanceOperation.MERGE, LanceOperation.OVERWRITE),
        EnumSet.of(Slot.FIRST));
    coordinator = RunningCoordinator.start(work.resolve("warehouse"));
  }

  @AfterAll
  static void printMatrix() {
    System.out.println("Poisoned fields: stock Lance reading the version / the coordinator");
    MATRIX.forEach(System.out::println);
    if (coordinator != null) {
      coordinator.close();
    }
  }

  static List<Poison> poisons() {
    LanceOperation app = LanceOperation.APPEND;
    return List.of(
        new Poison("fragment id 2^32", app, t -> appendFragment(t, f -> f.setId(1L << 32))),
        new Poison("fragment id 2^64-1", app, t -> appendFragment(t, f -> f.setId(-1L))),
        new Poison("physical_rows 2^64-1", app, t -> appendFragment(t, f -> f.setPhysicalRows(-1L))),
        new Poison("physical_rows 0 (unknown)", app, t -> appendFragment(t, f -> f.setPhysicalRows(0))),
        new Poison("physical_rows 2^32+1", app, t -> appendFragment(t, f -> f.setPhysicalRows((1L << 32) + 1))),
        new Poison("physical_rows one more than the file holds", app,
            t -> appendFragment(t, f -> f.setPhysicalRows(f.getPhysicalRows() + 1))),
        new Poison("physical_rows one fewer than the file holds", app,
            t -> appendFragment(t, f -> f.setPhysicalRows(f.getPhysicalRows() - 1)))
            .stricter("Lance reads only physical_rows rows of the file: the last row silently disappears"),
        new Poison("data file path, one character changed (issue 14)", app,
            t -> appendFile(t, d -> d.setPath(flip(d.getPath())))),
        new Poison("file_size_bytes one more", app, t -> appendFile(t, d -> d.setFileSizeBytes(d.getFileSizeBytes() + 1))),
        new Poison("field id -1 in a data file", app, t -> appendFile(t, d -> d.setFields(1, -1)))
            .stricter("-1 is never persisted (Lance's rule); Lance ignores the column, so the field reads as nulls"),
        new Poison("field id 9, not in the schema", app, t -> appendFile(t, d -> d.setFields(1, 9)))
            .stricter("the schema contract (400/20): Lance ignores the column, so the real field reads as nulls"),
        new Poison("one field id twice in a data file", app, t -> appendFile(t, d -> d.setFields(1, 0))),
        new Poison("the non-nullable id stored by no file of the fragment (fuzz suite)", app,
            t -> appendFile(t, d -> {
              List<Integer> fields = new ArrayList<>(d.getFieldsList());
              List<Integer> columns = new ArrayList<>(d.getColumnIndicesList());
              int at = fields.indexOf(0);
              fields.remove(at);
              columns.remove(at);
              return d.clearFields().addAllFields(fields).clearColumnIndices().addAllColumnIndices(columns);
            })),

        new Poison("column indices swapped", app, t -> appendFile(t, d -> d.setColumnIndices(0, 1)
            .setColumnIndices(1, 0))),
        new Poison("column index beyond the file's columns", app, t -> appendFile(t, d -> d.setColumnIndices(1, 5))),
        new Poison("column index -5", app, t -> appendFile(t, d -> d.setColumnIndices(1, -5))),
        new Poison("column index -1 (no column) for a stored field", app,
            t -> appendFile(t, d -> d.setColumnIndices(1, -1))),
        new Poison("one column index missing", app, t -> appendFile(t, d -> d.clearColumnIndices()
            .addColumnIndices(0))),
        new Poison("file version 2.0 (the file is 2.1)", app, t -> appendFile(t, d -> d.setFileMajorVersion(2)
            .setFileMinorVersion(0)))
            .orInManifest(m -> m.toBuilder().setFragments(3, m.getFragments(3).toBuilder().setFiles(0,
                m.getFragments(3).getFiles(0).toBuilder().setFileMinorVersion(0))).build())
            .stricter("Lance's own commit refuses files of another storage version than the table's"),
        new Poison("no data file", app, t -> appendFragment(t, DataFragment.Builder::clearFiles)),
        new Poison("a deletion file nobody wrote", app, t -> appendFragment(t, f -> f.setDeletionFile(
            DeletionFile.newBuilder().setId(42).setReadVersion(4).setNumDeletedRows(1)))),
        new Poison("the data file listed twice", app, t -> appendFragment(t, f -> f.addFiles(f.getFiles(0))))
            .stricter("Lance's own commit repairs a field stored by two files (fix_schema); the coordinator does not "
                + "rewrite what a writer sent"),
        new Poison("inline row ids in a table without stable row ids", app, t -> appendFragment(t, f ->
            f.setInlineRowIds(ByteString.copyFrom(new byte[] {10, 4, 10, 2, 0, 5})))),
        new Poison("num_deleted_rows one more than the deletion file holds", LanceOperation.DELETE_ROWS,
            t -> deleteFragment(t, f -> f.setDeletionFile(f.getDeletionFile().toBuilder()
                .setNumDeletedRows(f.getDeletionFile().getNumDeletedRows() + 1)))),
        new Poison("num_deleted_rows above physical_rows", LanceOperation.DELETE_ROWS,
            t -> deleteFragment(t, f -> f.setDeletionFile(f.getDeletionFile().toBuilder()
                .setNumDeletedRows(f.getPhysicalRows() + 1)))),
        new Poison("deletion file id changed", LanceOperation.DELETE_ROWS,
            t -> deleteFragment(t, f -> f.setDeletionFile(f.getDeletionFile().toBuilder()
                .setId(f.getDeletionFile().getId() + 1)))),
        new Poison("deletion file type switched", LanceOperation.DELETE_ROWS,
            t -> deleteFragment(t, f -> f.setDeletionFile(f.getDeletionFile().toBuilder()
                .setFileType(DeletionFile.DeletionFileType.BITMAP)))),
        new Poison("physical_rows of a kept data file changed", LanceOperation.DELETE_ROWS,
            t -> deleteFragment(t, f -> f.setPhysicalRows(f.getPhysicalRows() + 1))),
        new Poison("index bitmap names fragment 999", LanceOperation.CREATE_INDEX,
            t -> newIndex(t, i -> i.setFragmentBitmap(TransactionFactory.fragmentBitmap(List.of(0, 1, 2, 999)))))
            .stricter("an index covering a fragment the table never had comes from a confused writer (issue 14 "
                + "refuses it); Lance's queries merely skip it"),
        new Poison("index covers field id 9", LanceOperation.CREATE_INDEX, t -> newIndex(t, i -> i.setFields(0, 9))),
        new Poison("index file size one more", LanceOperation.CREATE_INDEX,
            t -> newIndex(t, i -> i.setFiles(0, i.getFiles(0).toBuilder().setSizeBytes(i.getFiles(0).getSizeBytes()
                + 1)))),
        new Poison("index uuid changed", LanceOperation.CREATE_INDEX, t -> newIndex(t, i -> {
          byte[] uuid = i.getUuid().getUuid().toByteArray();
          uuid[15] ^= 1;
          return i.setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(uuid)));
        })),
        new Poison("index built from a future version", LanceOperation.CREATE_INDEX,
            t -> newIndex(t, i -> i.setDatasetVersion(99)))
            .stricter("no index is built from a version the table does not have yet; Lance judges an index's "
                + "staleness by it"),
        new Poison("index fragment bitmap garbled", LanceOperation.CREATE_INDEX,
            t -> newIndex(t, i -> i.setFragmentBitmap(ByteString.copyFrom(new byte[] {1, 2, 3, 4, 5})))),
        new Poison("the rewritten column's file also stores field 0", LanceOperation.UPDATE_COLUMNS,
            t -> updatedFile(t, d -> d.setFields(0, 0))),
        new Poison("the rewritten column's file, column index 1 of 1", LanceOperation.UPDATE_COLUMNS,
            t -> updatedFile(t, d -> d.setColumnIndices(0, 1))),
        new Poison("the added column's file of fragment 0 missing", LanceOperation.MERGE, t -> {
          Transaction.Builder b = t.toBuilder();
          DataFragment f = t.getMerge().getFragments(0);
          int last = f.getFilesCount() - 1;
          b.getMergeBuilder().setFragments(0, f.toBuilder().setFiles(last, f.getFiles(last).toBuilder()
              .setPath(flip(f.getFiles(last).getPath()))));
          return b.build();
        }),
        new Poison("a schema field of logical type 'int6$'", LanceOperation.OVERWRITE,
            t -> overwriteField(t, 0, f -> f.setLogicalType("int6$")))
            .orInManifest(m -> m.toBuilder().setFields(0, m.getFields(0).toBuilder().setLogicalType("int6$")).build()),
        new Poison("a timestamp without a unit", LanceOperation.OVERWRITE,
            t -> overwriteField(t, 0, f -> f.setLogicalType("timestamp")))
            .orInManifest(m -> m.toBuilder().setFields(0, m.getFields(0).toBuilder().setLogicalType("timestamp"))
                .build()));
  }

  @TestFactory
  Stream<DynamicTest> whateverStockLanceCannotReadIsRefused() throws Exception {
    // stock Lance's verdicts first, all in a child JVM (it aborts on some damage), then one test per damage
    Map<Path, Long> versions = new LinkedHashMap<>();
    Map<String, Path> tables = new LinkedHashMap<>();
    Map<String, String> notBuilt = new LinkedHashMap<>();
    for (Poison poison : poisons()) {
      Transaction real = stage.get(poison.operation(), Slot.FIRST).parsed();
      String slug = slug(poison);
      Path table = work.resolve("oracle").resolve(slug + ".lance");
      Optional<String> refusal = writeVersion(table, real, poison.damage().apply(real), poison.inManifest());
      if (refusal.isPresent()) {
        notBuilt.put(poison.name(), refusal.get());
      } else {
        versions.put(table, BaseTable.READ_VERSION + 1);
        tables.put(poison.name(), table);
      }
    }
    Map<Path, String> verdicts = LanceReadProbe.verdicts(versions);
    return poisons().stream().map(p -> DynamicTest.dynamicTest(p.name(), () -> {
      String verdict = notBuilt.containsKey(p.name()) ? "UNREADABLE no version can be built from it: "
          + notBuilt.get(p.name()) : verdicts.get(tables.get(p.name()));
      check(p, verdict);
    }));
  }

  private static String slug(Poison poison) {
    return poison.name().replaceAll("[^A-Za-z0-9]+", "-").toLowerCase(java.util.Locale.ROOT);
  }

  private static void check(Poison poison, String verdict) {
    Transaction damaged = poison.damage().apply(stage.get(poison.operation(), Slot.FIRST).parsed());
    CommitApi.Response answer = coordinatorCommits(slug(poison), damaged);
    boolean refused = answer.status() != 200;
    boolean readable = LanceReadProbe.readable(verdict);
    MATRIX.add(String.format(java.util.Locale.ROOT, "%-58s %-8s %s", poison.name(),
        readable ? "reads" : "refuses", refused ? answer.status() + "/" + answer.code() : "commits"));
    System.out.println(poison.name() + ": Lance " + verdict + "; coordinator " + answer);
    assertThat(answer.status()).as("never a 5xx: %s", answer).isLessThan(500);
    if (!readable) {
      assertThat(refused).as("stock Lance cannot read it (%s), so the coordinator must refuse; it answered %s",
          verdict, answer).isTrue();
    } else if (poison.stricterBecause() == null) {
      assertThat(refused).as("stock Lance reads it (%s); the coordinator refused: %s", verdict, answer).isFalse();
    } else {
      assertThat(refused).as("documented as refused although Lance reads it (%s): %s", poison.stricterBecause(),
          answer).isTrue();
    }
  }

  /**
   * Writes, beside a copy of the staged table's files, the version the damaged transaction makes as the coordinator's
   * {@link ManifestBuilder} builds it; empty, or the builder's refusal when no version can be built and the damage has
   * no manifest form.
   */
  private static Optional<String> writeVersion(Path table, Transaction real, Transaction damaged,
      UnaryOperator<Manifest> inManifest) {
    TableFiles.copyTree(stage.pool(), table);
    try (LocalObjectStore store = new LocalObjectStore(table)) {
      StorageLocation location = new StorageLocation(store, "");
      TableOperations ops = TableOperations.of(location);
      TableVersions versions = ops.versions();
      ManifestNaming.Scheme scheme = versions.scheme().orElseThrow();
      TableState current = ops.readManifest(BaseTable.READ_VERSION, scheme).orElseThrow().tableState();
      long version = BaseTable.READ_VERSION + 1;
      TableState next;
      Transaction recorded = damaged;
      try {
        next = ManifestBuilder.build(current, damaged, context(version, damaged));
      } catch (RulesException e) {
        if (inManifest == null) {
          return Optional.of(e.getMessage());
        }
        TableState undamaged = ManifestBuilder.build(current, real, context(version, real));
        next = new TableState(inManifest.apply(undamaged.manifest()), undamaged.indices());
        recorded = real;
      }
      store.put(location.key(TransactionFiles.path(recorded)), TransactionFiles.encode(recorded));
      store.putIfAbsent(location.key(ManifestNaming.path(scheme, version)), new ManifestFile(next.manifest(),
          next.indices(), Optional.of(recorded)).encode());
      return Optional.empty();
    }
  }

  private static CommitContext context(long version, Transaction txn) {
    return new CommitContext(version, Instant.now(), TransactionFiles.fileName(txn), WriterVersions.coordinator(),
        false, CommitContext.DEFAULT_STORAGE_VERSION);
  }

  private static CommitApi.Response coordinatorCommits(String slug, Transaction damaged) {
    Path table = coordinator.newTableDir(slug.length() > 40 ? slug.substring(0, 40) : slug);
    TableFiles.copyTree(stage.pool(), table);
    List<String> id = coordinator.register(table);
    CommitApi.Response answer = coordinator.commit(id, damaged.toByteArray());
    if (answer.status() != 200) {
      try (LanceTables lance = LanceTables.local(table)) {
        assertThat(lance.latestVersion()).as("a refused commit wrote nothing").isEqualTo(BaseTable.READ_VERSION);
      }
    }
    return answer;
  }

  // ---- damage ------------------------------------------------------------------------------------------------

  private static Transaction appendFragment(Transaction t, UnaryOperator<DataFragment.Builder> change) {
    Transaction.Builder b = t.toBuilder();
    b.getAppendBuilder().setFragments(0, change.apply(t.getAppend().getFragments(0).toBuilder()));
    return b.build();
  }

  private static Transaction appendFile(Transaction t, UnaryOperator<DataFile.Builder> change) {
    return appendFragment(t, f -> f.setFiles(0, change.apply(f.getFiles(0).toBuilder())));
  }

  private static Transaction deleteFragment(Transaction t, UnaryOperator<DataFragment.Builder> change) {
    Transaction.Builder b = t.toBuilder();
    b.getDeleteBuilder().setUpdatedFragments(0, change.apply(t.getDelete().getUpdatedFragments(0).toBuilder()));
    return b.build();
  }

  private static Transaction newIndex(Transaction t, UnaryOperator<IndexMetadata.Builder> change) {
    Transaction.Builder b = t.toBuilder();
    b.getCreateIndexBuilder().setNewIndices(0, change.apply(t.getCreateIndex().getNewIndices(0).toBuilder()));
    return b.build();
  }

  /** The file an Update (rewrite columns) adds to its updated fragment: the last one. */
  private static Transaction updatedFile(Transaction t, UnaryOperator<DataFile.Builder> change) {
    Transaction.Builder b = t.toBuilder();
    DataFragment f = t.getUpdate().getUpdatedFragments(0);
    int last = f.getFilesCount() - 1;
    b.getUpdateBuilder().setUpdatedFragments(0, f.toBuilder().setFiles(last,
        change.apply(f.getFiles(last).toBuilder())));
    return b.build();
  }

  private static Transaction overwriteField(Transaction t, int at, UnaryOperator<Field.Builder> change) {
    Transaction.Builder b = t.toBuilder();
    b.getOverwriteBuilder().setSchema(at, change.apply(t.getOverwrite().getSchema(at).toBuilder()));
    return b.build();
  }

  private static String flip(String path) {
    char[] chars = path.toCharArray();
    chars[0] = chars[0] == '0' ? '1' : '0';
    return new String(chars);
  }
}
