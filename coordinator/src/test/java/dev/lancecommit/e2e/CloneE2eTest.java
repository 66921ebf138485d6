package dev.lancecommit.e2e;

import static dev.lancecommit.e2e.VersionHistoryE2eTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.deletion.DeletionVectors;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.Stream;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Ref;

/**
 * Clones committed through CommitTable. Shallow: a source table gets four versions, a declared table is cloned from
 * the source's version 2, and stock Lance reads the clone, appends land after it, the source stays as it was, and a
 * clone stock Lance makes itself of the same version reads back the same rows. Deep: the clone owns copies of the
 * files and outlives its source (stock Lance Java 7.0.0 has no deep clone API, so the test copies as Lance's Rust
 * {@code deep_clone} does).
 */
@ExtendWith(E2eServices.class)
class CloneE2eTest {
  private static final int ROWS = 3;
  private static final long CLONED_VERSION = 2;

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void aShallowCloneCommittedThroughCommitTableIsReadByStockLance(E2eServices.Store store, E2eServices services) {
    E2eServices.Service service = services.service(store);
    try (E2eTable source = E2eTable.declare(service, "clonesrc");
        E2eTable clone = E2eTable.declare(service, "clonedst")) {
      source.create(0, ROWS);
      for (long v = 2; v <= 4; v++) {
        assertThat(source.append(v - 1, (v - 1) * ROWS, ROWS).version()).isEqualTo(v);
      }
      Map<String, Long> sourceFiles = store == E2eServices.Store.LOCAL
          ? IdempotentResubmitE2eTest.tableFiles(source.localRoot()) : Map.of();

      Transaction cloneTxn = shallowClone(source.location(), CLONED_VERSION);
      byte[] cloneBytes = cloneTxn.toByteArray();
      CommitApi.Response cloned = clone.api().commitBytes(clone.id(), cloneBytes, CommitApi.PROTOBUF);
      assertThat(cloned.status()).as("%s", cloned).isEqualTo(200);
      assertThat(cloned.version()).isEqualTo(CLONED_VERSION);
      assertThat(cloned.body().get("read_version").asLong()).isEqualTo(CLONED_VERSION);
      assertThat(cloned.body().get("operation").asText()).isEqualTo("Clone");
      assertThat(cloned.transactionUuid()).isEqualTo(cloneTxn.getUuid());
      assertThat(cloned.body().get("manifest_path").asText()).startsWith(clone.location());

      // stock Lance opens the clone: its one version is the source's version 2, with exactly those rows
      assertThat(clone.lance().versions()).containsExactly(CLONED_VERSION);
      assertThat(clone.lance().readIds(CLONED_VERSION))
          .containsExactlyInAnyOrderElementsOf(range(0, CLONED_VERSION * ROWS));
      assertValuesMatchIds(clone.lance(), CLONED_VERSION);
      assertThat(clone.describedVersion()).isEqualTo(CLONED_VERSION);
      assertThat(listedVersions(clone)).containsExactly(CLONED_VERSION);

      // an append to the clone lands right after the cloned version and is readable with the cloned rows
      CommitApi.Response appended = clone.append(CLONED_VERSION, 100, ROWS);
      assertThat(appended.version()).isEqualTo(CLONED_VERSION + 1);
      List<Long> expected = new ArrayList<>(range(0, CLONED_VERSION * ROWS));
      expected.addAll(range(100, 100 + ROWS));
      assertThat(clone.lance().readIds(CLONED_VERSION + 1)).containsExactlyInAnyOrderElementsOf(expected);
      assertThat(clone.lance().versions()).containsExactly(CLONED_VERSION, CLONED_VERSION + 1);
      assertThat(listedVersions(clone)).containsExactly(CLONED_VERSION, CLONED_VERSION + 1);
      assertThat(clone.describedVersion()).isEqualTo(CLONED_VERSION + 1);

      // the same clone resubmitted (its answer lost) gets the same answer and writes nothing
      Map<String, Long> cloneFiles = store == E2eServices.Store.LOCAL
          ? IdempotentResubmitE2eTest.tableFiles(clone.localRoot()) : Map.of();
      CommitApi.Response again = clone.api().commitBytes(clone.id(), cloneBytes, CommitApi.PROTOBUF);
      assertThat(again.status()).as("%s", again).isEqualTo(200);
      assertThat(again.version()).isEqualTo(CLONED_VERSION);
      assertThat(again.body().get("manifest_path")).isEqualTo(cloned.body().get("manifest_path"));
      assertThat(again.body().get("operation").asText()).isEqualTo("Clone");
      if (store == E2eServices.Store.LOCAL) {
        assertThat(IdempotentResubmitE2eTest.tableFiles(clone.localRoot())).isEqualTo(cloneFiles);
      }

      // another clone onto the table, which has versions now, is refused
      CommitApi.Response onto = clone.api().commit(clone.id(), shallowClone(source.location(), 3));
      assertThat(onto.status()).as("%s", onto).isEqualTo(400);
      assertThat(onto.code()).isEqualTo(13);
      assertThat(onto.raw()).contains("Clone creates a table").contains("already exists at version 3");
      assertThat(clone.lance().versions()).containsExactly(CLONED_VERSION, CLONED_VERSION + 1);

      // the source is untouched: same versions, same rows, not one file more
      assertThat(source.lance().versions()).containsExactlyElementsOf(range(1, 5));
      assertThat(source.lance().readIds(4)).containsExactlyInAnyOrderElementsOf(range(0, 4 * ROWS));
      assertThat(source.lance().readIds(CLONED_VERSION))
          .containsExactlyInAnyOrderElementsOf(range(0, CLONED_VERSION * ROWS));
      assertThat(source.describedVersion()).isEqualTo(4);
      if (store == E2eServices.Store.LOCAL) {
        assertThat(IdempotentResubmitE2eTest.tableFiles(source.localRoot())).isEqualTo(sourceFiles);
      }

      // stock Lance's own shallow clone of the same version reads back the same rows
      String stockUri = service.warehouse() + "/stock_clones/" + UUID.randomUUID() + ".lance";
      try (Dataset sourceDs = source.lance().open();
          Dataset stock = sourceDs.shallowClone(stockUri, Ref.ofMain(CLONED_VERSION), service.lanceStorageOptions())) {
        assertThat(stock.version()).isEqualTo(CLONED_VERSION);
        List<Object> stockIds = LanceTables.readColumn(stock, "id");
        assertThat(stockIds).containsExactlyInAnyOrderElementsOf(clone.lance().readColumn(CLONED_VERSION, "id"));
        assertThat(LanceTables.readColumn(stock, "value"))
            .containsExactlyInAnyOrderElementsOf(clone.lance().readColumn(CLONED_VERSION, "value"));
      }

      // the commit events: the clone's first version, then the append (a resubmit may repeat an id, never a version)
      try (CommitEventReader reader = new CommitEventReader(service.kafkaBootstrap(), service.topic())) {
        List<CommitEvent> events = reader.readTable(clone.id(), 2, Duration.ofSeconds(60));
        Map<String, CommitEvent> byId = new LinkedHashMap<>();
        events.forEach(e -> byId.putIfAbsent(e.id(), e));
        assertThat(byId.values()).extracting(CommitEvent::version).containsExactly(CLONED_VERSION, CLONED_VERSION + 1);
        CommitEvent first = byId.values().iterator().next();
        assertThat(first.operation()).isEqualTo("Clone");
        assertThat(first.transactionUuid()).isEqualTo(cloneTxn.getUuid());
        assertThat(first.rowsAdded()).isEqualTo(CLONED_VERSION * ROWS);
        assertThat(first.fragmentsAdded()).isEqualTo((int) CLONED_VERSION);
        assertThat(first.governed()).isTrue();
      }
    }
  }

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void aCloneThatCannotBeMadeIsRefusedAndLeavesTheTableEmpty(E2eServices.Store store, E2eServices services) {
    E2eServices.Service service = services.service(store);
    try (E2eTable source = E2eTable.declare(service, "clonesrc");
        E2eTable target = E2eTable.declare(service, "clonebad")) {
      source.create(0, ROWS);

      CommitApi.Response missingVersion = target.api().commit(target.id(), shallowClone(source.location(), 99));
      assertThat(missingVersion.status()).as("%s", missingVersion).isEqualTo(400);
      assertThat(missingVersion.code()).isEqualTo(13);
      assertThat(missingVersion.raw()).contains("has no version 99");

      CommitApi.Response missingTable =
          target.api().commit(target.id(), shallowClone(service.warehouse() + "/no_such_table.lance", 1));
      assertThat(missingTable.status()).as("%s", missingTable).isEqualTo(400);
      assertThat(missingTable.code()).isEqualTo(13);

      CommitApi.Response foreignStore = target.api().commit(target.id(), shallowClone("gs://bucket/t.lance", 1));
      assertThat(foreignStore.status()).as("%s", foreignStore).isEqualTo(400);
      assertThat(foreignStore.code()).isEqualTo(13);
      assertThat(foreignStore.raw()).contains("Cannot read the clone source");

      Transaction deep = shallowClone(source.location(), 1).toBuilder()
          .setClone(shallowClone(source.location(), 1).getClone().toBuilder().setIsShallow(false)).build();
      CommitApi.Response deepClone = target.api().commit(target.id(), deep);
      assertThat(deepClone.status()).as("%s", deepClone).isEqualTo(400);
      assertThat(deepClone.code()).isEqualTo(13);
      assertThat(deepClone.raw()).contains("Deep clone").contains("is not there");

      assertThat(target.describedVersion()).isZero();
      assertThat(listedVersions(target)).isEmpty();

      // after all that, a good clone still creates the table
      CommitApi.Response good = target.api().commit(target.id(), shallowClone(source.location(), 1));
      assertThat(good.status()).as("%s", good).isEqualTo(200);
      assertThat(target.lance().readIds(1)).containsExactlyInAnyOrderElementsOf(range(0, ROWS));
    }
  }

  /**
   * The exact Clone transaction stock Lance writes for its own shallow clone, committed to a declared table through
   * CommitTable: the coordinator builds a manifest Lance reads like its own (local store: the .txn is read from disk).
   */
  @org.junit.jupiter.api.Test
  void theCloneTransactionStockLanceWritesCommitsThroughTheCoordinator(E2eServices services) {
    E2eServices.Service service = services.service(E2eServices.Store.LOCAL);
    try (E2eTable source = E2eTable.declare(service, "clonesrc");
        E2eTable target = E2eTable.declare(service, "clonestock")) {
      source.create(0, ROWS);
      source.append(1, ROWS, ROWS);
      source.append(2, 2 * ROWS, ROWS);
      Path stockRoot = Path.of(service.warehouse(), "stock_clones", UUID.randomUUID() + ".lance");
      List<Object> stockIds;
      try (Dataset sourceDs = source.lance().open();
          Dataset stock = sourceDs.shallowClone(stockRoot.toString(), Ref.ofMain(CLONED_VERSION), Map.of())) {
        stockIds = LanceTables.readColumn(stock, "id");
      }
      Transaction stockTxn = onlyTransaction(stockRoot);
      assertThat(stockTxn.hasClone()).isTrue();
      assertThat(stockTxn.getClone().getRefVersion()).isEqualTo(CLONED_VERSION);

      CommitApi.Response r = target.api().commit(target.id(), stockTxn);
      assertThat(r.status()).as("%s", r).isEqualTo(200);
      assertThat(r.version()).isEqualTo(CLONED_VERSION);
      assertThat(target.lance().versions()).containsExactly(CLONED_VERSION);
      assertThat(target.lance().readColumn(CLONED_VERSION, "id")).containsExactlyInAnyOrderElementsOf(stockIds);
      assertThat(target.append(CLONED_VERSION, 50, ROWS).version()).isEqualTo(CLONED_VERSION + 1);
    }
  }

  /**
   * A deep clone as Lance's {@code deep_clone} makes it: the files of the source version are copied into the new
   * table first (data, deletion files), then the Clone is committed, here through CommitTable. Stock Lance reads
   * exactly the source version's rows from it, and keeps reading them once the source is gone from the store. A
   * partial copy is refused and leaves its table without a version.
   */
  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void aDeepCloneCommittedThroughCommitTableOwnsItsFilesAndOutlivesItsSource(
      E2eServices.Store store, E2eServices services) {
    E2eServices.Service service = services.service(store);
    try (ObjectStores stores = storesOf(service);
        E2eTable source = E2eTable.declare(service, "deepsrc");
        E2eTable clone = E2eTable.declare(service, "deepdst");
        E2eTable partial = E2eTable.declare(service, "deepbad")) {
      long cloned = 3;
      source.create(0, ROWS);
      source.append(1, ROWS, ROWS);
      // version 3 deletes id 1: Lance writes the deletion file, CommitTable commits the Delete
      FragmentMetadata withDeletion;
      try (Dataset v2 = source.lance().open(2)) {
        withDeletion = new Fragment(v2, 0).deleteRows(List.of(1));
      }
      CommitApi.Response deleted = source.api().commit(source.id(),
          TransactionFactory.delete(2, List.of(LanceProtos.fragment(withDeletion)), List.of()));
      assertThat(deleted.status()).as("%s", deleted).isEqualTo(200);
      source.append(cloned, 100, ROWS);
      List<Long> expected = source.lance().readIds(cloned);
      assertThat(expected).containsExactlyInAnyOrder(0L, 2L, 3L, 4L, 5L);
      List<String> files = filesOf(source.lance(), cloned);
      assertThat(files).anyMatch(f -> f.startsWith("_deletions/")).anyMatch(f -> f.startsWith("data/"));
      StorageLocation sourceRoot = stores.resolve(source.location());
      Transaction deep = deepClone(source.location(), cloned);

      // a copy missing a file is refused, naming it, and the table stays without a version
      StorageLocation partialRoot = stores.resolve(partial.location());
      copy(sourceRoot, partialRoot, files.subList(1, files.size()));
      CommitApi.Response refused = partial.api().commit(partial.id(), deep);
      assertThat(refused.status()).as("%s", refused).isEqualTo(400);
      assertThat(refused.code()).isEqualTo(13);
      assertThat(refused.raw()).contains(files.get(0)).contains("is not there");
      assertThat(partial.describedVersion()).isZero();
      assertThat(listedVersions(partial)).isEmpty();
      assertThat(partialRoot.store().list(partialRoot.rootKey())).extracting(ObjectInfo::key)
          .noneMatch(k -> k.contains("/_versions/") || k.contains("/_transactions/"));

      // the full copy commits: the clone's first version is the source's version 3, every file its own
      StorageLocation cloneRoot = stores.resolve(clone.location());
      copy(sourceRoot, cloneRoot, files);
      CommitApi.Response r = clone.api().commit(clone.id(), deep);
      assertThat(r.status()).as("%s", r).isEqualTo(200);
      assertThat(r.version()).isEqualTo(cloned);
      assertThat(r.body().get("operation").asText()).isEqualTo("Clone");
      TableOperations cloneStorage = TableOperations.of(cloneRoot);
      Manifest first = cloneStorage.readVersion(cloned).orElseThrow().manifest();
      assertThat(first.getBasePathsList()).isEmpty();
      assertThat(first.getFragmentsList()).allSatisfy(f -> {
        assertThat(f.getFilesList()).noneMatch(DataFile::hasBaseId);
        assertThat(f.getDeletionFile().hasBaseId()).isFalse();
      });
      assertThat(clone.lance().versions()).containsExactly(cloned);
      assertThat(clone.lance().readIds(cloned)).containsExactlyInAnyOrderElementsOf(expected);

      // the source leaves the store altogether; a fresh Lance still reads the clone, and it takes appends
      for (ObjectInfo file : sourceRoot.store().list(sourceRoot.rootKey())) {
        sourceRoot.store().delete(file.key());
      }
      assertThat(sourceRoot.store().list(sourceRoot.rootKey())).isEmpty();
      try (LanceTables fresh = LanceTables.at(clone.location(), service.lanceStorageOptions())) {
        assertThat(fresh.readIds(cloned)).containsExactlyInAnyOrderElementsOf(expected);
        assertValuesMatchIds(fresh, cloned);
      }
      assertThat(clone.append(cloned, 200, ROWS).version()).isEqualTo(cloned + 1);
      List<Long> afterAppend = new ArrayList<>(expected);
      afterAppend.addAll(range(200, 200 + ROWS));
      assertThat(clone.lance().readIds(cloned + 1)).containsExactlyInAnyOrderElementsOf(afterAppend);
    }
  }

  /** A deep clone of {@code refVersion} of the main branch at {@code refPath}, as Lance's deep_clone builds it. */
  static Transaction deepClone(String refPath, long refVersion) {
    Transaction shallow = shallowClone(refPath, refVersion);
    return shallow.toBuilder().setClone(shallow.getClone().toBuilder().setIsShallow(false)).build();
  }

  /** The files of {@code version} relative to the table root, as stock Lance sees them: data, then deletions. */
  private static List<String> filesOf(LanceTables table, long version) {
    List<String> data = new ArrayList<>();
    List<String> deletions = new ArrayList<>();
    try (Dataset ds = table.open(version)) {
      for (Fragment fragment : ds.getFragments()) {
        FragmentMetadata meta = fragment.metadata();
        meta.getFiles().forEach(f -> data.add("data/" + f.getPath()));
        if (meta.getDeletionFile() != null) {
          deletions.add(DeletionVectors.relativePath(meta.getId(), LanceProtos.deletionFile(meta.getDeletionFile())));
        }
      }
    }
    data.addAll(deletions);
    return data;
  }

  /** Copies as Lance's deep_clone does: same path relative to the table root. */
  private static void copy(StorageLocation from, StorageLocation to, List<String> files) {
    for (String file : files) {
      to.store().put(to.key(file), from.store().get(from.key(file)).orElseThrow());
    }
  }

  private static ObjectStores storesOf(E2eServices.Service service) {
    if (service.store() == E2eServices.Store.LOCAL) {
      return ObjectStores.localOnly();
    }
    Map<String, String> options = service.lanceStorageOptions();
    return new ObjectStores(new S3Config(options.get("aws_endpoint"), options.get("aws_region"), true,
        options.get("aws_access_key_id"), options.get("aws_secret_access_key"), null, Duration.ofSeconds(30),
        Duration.ofSeconds(10)));
  }

  /** A shallow clone of {@code refVersion} of the table at {@code refPath}, built as Lance's shallow_clone does. */
  static Transaction shallowClone(String refPath, long refVersion) {
    return Transaction.newBuilder()
        .setReadVersion(refVersion)
        .setUuid(TransactionFactory.newUuid())
        .setClone(Transaction.Clone.newBuilder()
            .setIsShallow(true)
            .setRefPath(refPath)
            .setRefVersion(refVersion))
        .build();
  }

  private static void assertValuesMatchIds(LanceTables table, long version) {
    List<Object> ids = table.readColumn(version, "id");
    List<Object> values = table.readColumn(version, "value");
    for (int i = 0; i < ids.size(); i++) {
      assertThat(values.get(i)).isEqualTo(LanceTables.valueOf(((Number) ids.get(i)).longValue()));
    }
  }

  /** The versions the ListTableVersions route reports, ascending. */
  private static List<Long> listedVersions(E2eTable table) {
    CommitApi.Response r = table.api().postJson("/v1/table/" + CommitApi.joined(table.id()) + "/version/list", "{}");
    assertThat(r.status()).as("%s", r).isEqualTo(200);
    List<Long> versions = new ArrayList<>();
    for (JsonNode v : r.body().get("versions")) {
      versions.add(v.get("version").asLong());
    }
    return versions;
  }

  private static Transaction onlyTransaction(Path root) {
    try (Stream<Path> files = Files.list(root.resolve(TransactionFiles.TRANSACTIONS_DIR))) {
      List<Path> txns = files.filter(p -> p.toString().endsWith(".txn")).toList();
      assertThat(txns).hasSize(1);
      return TransactionFiles.decode(Files.readAllBytes(txns.get(0)));
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
