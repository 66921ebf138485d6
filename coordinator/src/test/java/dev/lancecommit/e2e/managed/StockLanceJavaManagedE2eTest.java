package dev.lancecommit.e2e.managed;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.e2e.CommitApi;
import dev.lancecommit.e2e.E2eServices;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.testing.S3ProxyFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.stream.LongStream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.Transaction;
import org.lance.WriteParams;
import org.lance.namespace.RestNamespace;
import org.lance.namespace.errors.LanceNamespaceException;
import org.lance.namespace.model.CreateNamespaceRequest;
import org.lance.namespace.model.DeregisterTableRequest;
import org.lance.namespace.model.DescribeTableRequest;
import org.lance.namespace.model.DescribeTableResponse;
import org.lance.namespace.model.DropTableRequest;
import org.lance.namespace.model.ListTableVersionsRequest;
import org.lance.namespace.model.ListTablesRequest;
import org.lance.namespace.model.RegisterTableRequest;
import org.lance.namespace.model.RenameTableRequest;
import org.lance.namespace.model.TableVersion;
import org.lance.operation.Append;

/**
 * Stock Lance Java (lance-core 7.0.0 and its native REST namespace client) against a coordinator on s3proxy that
 * vends credentials: the client is given nothing but the coordinator's URL. Tables in a namespace created with
 * {@code managed_versioning=true} are committed through CreateTableVersion (Lance stages the manifest, the
 * coordinator commits its transaction through the commit lane); CommitTable commits interleave with those; every
 * version gets its event; rename, deregister, register and drop work on the result.
 */
@ExtendWith(E2eServices.class)
class StockLanceJavaManagedE2eTest {
  @RegisterExtension static final S3ProxyFixture S3 = new S3ProxyFixture();
  private static final Duration EVENT_TIMEOUT = Duration.ofSeconds(60);

  private ManagedCoordinator coordinator;
  private BufferAllocator allocator;
  private RestNamespace namespace;
  private String ns;

  @BeforeEach
  void start(E2eServices services) {
    coordinator = ManagedCoordinator.start(S3, services.service(E2eServices.Store.LOCAL).kafkaBootstrap());
    allocator = new RootAllocator();
    namespace = new RestNamespace();
    namespace.initialize(Map.of("uri", coordinator.restUrl()), allocator);
    ns = "sales_" + UUID.randomUUID().toString().substring(0, 8);
    namespace.createNamespace(new CreateNamespaceRequest().id(List.of(ns))
        .properties(Map.of("managed_versioning", "true")));
  }

  @AfterEach
  void stop() {
    namespace.close();
    allocator.close();
    coordinator.close();
  }

  @Test
  void stockLanceCommitsThroughTheNamespaceWithVendedCredentials() {
    List<String> id = List.of(ns, "orders");
    String location = coordinator.tableLocation(ns, "orders");

    // v1: Dataset.write(CREATE) declares the table, takes the vended keys and commits through CreateTableVersion
    assertThat(writeThroughNamespace(id, 0, 10, WriteParams.WriteMode.CREATE)).isEqualTo(1);
    DescribeTableResponse described = namespace.describeTable(new DescribeTableRequest().id(id));
    assertThat(described.getLocation()).isEqualTo(location);
    assertThat(described.getManagedVersioning()).isTrue();
    assertThat(described.getStorageOptions())
        .containsEntry("aws_access_key_id", S3.accessKey())
        .containsEntry("aws_secret_access_key", S3.secretKey())
        .containsEntry("aws_endpoint", S3.endpoint())
        .containsEntry("allow_http", "true");
    assertThat(described.getProperties()).containsEntry("managed_versioning", "true");

    // v2: fragments written through the namespace, committed by CommitBuilder with namespace-managed versioning
    List<FragmentMetadata> fragments = writeFragments(id, 10, 10);
    try (Dataset base = openThroughNamespace(id);
        Transaction append = new Transaction(1, Append.builder().fragments(fragments).build());
        Dataset committed = new CommitBuilder(base).namespaceClient(namespace).tableId(id)
            .namespaceClientManagedVersioning(true).execute(append)) {
      assertThat(committed.version()).isEqualTo(2);
      assertThat(committed.countRows()).isEqualTo(20);
      assertThat(committed.readTransaction().map(Transaction::uuid)).contains(append.uuid());
    }

    // v3: CommitTable with the transaction protobuf of fragments written through the namespace
    CommitApi api = new CommitApi(coordinator.restUrl());
    CommitApi.Response viaCommitTable = api.commit(id,
        TransactionFactory.append(2, LanceProtos.fragments(writeFragments(id, 20, 10))));
    assertThat(viaCommitTable.status()).as("%s", viaCommitTable).isEqualTo(200);
    assertThat(viaCommitTable.version()).isEqualTo(3);

    // v4: Dataset.write(APPEND) through the namespace on top of the CommitTable version
    assertThat(writeThroughNamespace(id, 30, 10, WriteParams.WriteMode.APPEND)).isEqualTo(4);

    assertThat(namespace.listTableVersions(new ListTableVersionsRequest().id(id).descending(true)).getVersions())
        .extracting(TableVersion::getVersion).containsExactly(4L, 3L, 2L, 1L);
    TableVersion latest = namespace.listTableVersions(
        new ListTableVersionsRequest().id(id).descending(true).limit(1)).getVersions().get(0);
    assertThat(latest.getManifestPath())
        .isEqualTo(coordinator.keyOf(location) + "/" + ManifestNaming.path(ManifestNaming.Scheme.V2, 4));
    try (Dataset ds = openThroughNamespace(id)) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(LanceTables.readColumn(ds, "id")).containsExactlyInAnyOrderElementsOf(ids(0, 40));
    }
    // every staged manifest was removed once its version existed
    assertThat(coordinator.versionFileNames(location)).allSatisfy(name ->
        assertThat(ManifestNaming.parse(name).isPresent() || name.equals("latest_version_hint.json"))
            .as("%s is a final manifest or Lance's hint", name).isTrue());

    // one event per version, in order, whichever way it was committed
    try (CommitEventReader reader = new CommitEventReader(coordinator.kafkaBootstrap(), coordinator.topic())) {
      List<CommitEvent> events = reader.readTable(id, 4, EVENT_TIMEOUT);
      assertThat(events).extracting(CommitEvent::version).containsExactly(1L, 2L, 3L, 4L);
      assertThat(events).extracting(CommitEvent::operation)
          .containsExactly("Overwrite", "Append", "Append", "Append");
      assertThat(events).extracting(CommitEvent::rowsAdded).containsExactly(10L, 10L, 10L, 10L);
      assertThat(events).allSatisfy(e -> assertThat(e.actor()).isEqualTo("anonymous"));
    }

    // rename keeps the data, the location and the managed versioning; commits continue under the new name
    List<String> renamed = List.of(ns, "orders_2026");
    namespace.renameTable(new RenameTableRequest().id(id).newTableName("orders_2026"));
    assertThatThrownBy(() -> namespace.describeTable(new DescribeTableRequest().id(id)))
        .isInstanceOf(LanceNamespaceException.class);
    assertThat(writeThroughNamespace(renamed, 40, 5, WriteParams.WriteMode.APPEND)).isEqualTo(5);
    assertThat(namespace.listTables(new ListTablesRequest().id(List.of(ns))).getTables())
        .containsExactly("orders_2026");

    // deregister keeps the files; register brings the table back (managed again: the namespace says so)
    assertThat(namespace.deregisterTable(new DeregisterTableRequest().id(renamed)).getLocation())
        .isEqualTo(location);
    assertThat(namespace.listTables(new ListTablesRequest().id(List.of(ns))).getTables()).isEmpty();
    namespace.registerTable(new RegisterTableRequest().id(renamed).location(location));
    DescribeTableResponse back = namespace.describeTable(new DescribeTableRequest().id(renamed));
    assertThat(back.getVersion()).isEqualTo(5);
    assertThat(back.getManagedVersioning()).isTrue();
    try (Dataset ds = openThroughNamespace(renamed)) {
      assertThat(LanceTables.readColumn(ds, "id")).containsExactlyInAnyOrderElementsOf(ids(0, 45));
    }

    // drop deletes every file of the table
    namespace.dropTable(new DropTableRequest().id(renamed));
    assertThat(coordinator.objectsUnder(coordinator.keyOf(location) + "/")).isEmpty();
  }

  @Test
  void aStaleManagedCommitIsRefusedThenRebasedAndRetriedByLance() {
    List<String> id = List.of(ns, "events");
    assertThat(writeThroughNamespace(id, 0, 10, WriteParams.WriteMode.CREATE)).isEqualTo(1);
    List<FragmentMetadata> first = writeFragments(id, 10, 10);
    List<FragmentMetadata> second = writeFragments(id, 20, 10);
    try (Dataset base = openThroughNamespace(id)) {
      assertThat(commitManaged(base, id, 1, first)).isEqualTo(2);
      // staged as version 2 again: refused (409/14) by the coordinator, then Lance reloads, rebases and stages 3
      assertThat(commitManaged(base, id, 1, second)).isEqualTo(3);
    }
    try (Dataset ds = openThroughNamespace(id)) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(LanceTables.readColumn(ds, "id")).containsExactlyInAnyOrderElementsOf(ids(0, 30));
    }
    assertThat(coordinator.versionFileNames(coordinator.tableLocation(ns, "events")))
        .noneMatch(name -> name.contains(".manifest-"));
  }

  /**
   * Lance Java 7.0.0 when the version it staged is taken between its reload and its CreateTableVersion (a
   * {@link RacingNamespaceProxy} lets another writer commit just then): the
   * coordinator refuses (409/14), and Lance, asking nothing more of the namespace ({@code commit_transaction} in
   * rust/lance/src/io/commit.rs of 7.0.0 treats every error of the external store as a conflict, without the outcome
   * verification 14.x has), backs off, reloads, rebases and stages the next version, which lands.
   */
  @Test
  void aStagedVersionTakenInTheMeantimeIsRefusedAndLanceStagesTheNextOne() {
    List<String> id = List.of(ns, "raced");
    assertThat(writeThroughNamespace(id, 0, 10, WriteParams.WriteMode.CREATE)).isEqualTo(1);
    try (RacingNamespaceProxy proxy = new RacingNamespaceProxy(coordinator.restUrl(),
            () -> writeThroughNamespace(id, 100, 10, WriteParams.WriteMode.APPEND));
        RestNamespace racing = rest(proxy.url())) {
      // opened through the proxy: the Dataset commits through the namespace client it was opened with
      try (Dataset base = Dataset.open().allocator(allocator).namespaceClient(racing).tableId(id).build();
          Transaction txn = new Transaction(1, Append.builder().fragments(writeFragments(id, 10, 10)).build());
          Dataset committed = new CommitBuilder(base).namespaceClient(racing).tableId(id)
              .namespaceClientManagedVersioning(true).execute(txn)) {
        assertThat(proxy.created()).containsExactly(2L, 3L);
        assertThat(proxy.described()).isEmpty();
        assertThat(committed.version()).isEqualTo(3);
        assertThat(committed.countRows()).isEqualTo(30);
      }
    }
    try (Dataset ds = openThroughNamespace(id)) {
      assertThat(ds.version()).isEqualTo(3);
      assertThat(LanceTables.readColumn(ds, "id")).containsExactlyInAnyOrderElementsOf(
          concat(ids(0, 20), ids(100, 110)));
    }
  }

  /**
   * On a table with {@code managed_versioning.appends_on_latest=true} the taken Append lands on the latest version
   * (3), one CreateTableVersion call, no retry. What Lance Java 7.0.0 makes of that answer is why it is opt-in: the
   * Dataset it returns keeps the manifest it staged ({@code LanceNamespaceExternalManifestStore::put} takes the
   * answered location, {@code commit_transaction} returns the staged manifest with it): it says version 2, reads
   * version 1's rows plus its own, and calls its new fragment 1, which in the table is the other writer's. Reopened,
   * or moved to the latest version, it is right: the answer's e_tag keeps the session cache from serving the staged
   * manifest as version 3.
   */
  @Test
  void onAnAppendsOnLatestTableATakenAppendLandsOnTheLatestVersionAndLanceKeepsTheManifestItStaged() {
    String ingest = "ingest_" + UUID.randomUUID().toString().substring(0, 8);
    namespace.createNamespace(new CreateNamespaceRequest().id(List.of(ingest)).properties(
        Map.of("managed_versioning", "true", "managed_versioning.appends_on_latest", "true")));
    List<String> id = List.of(ingest, "events");
    assertThat(writeThroughNamespace(id, 0, 10, WriteParams.WriteMode.CREATE)).isEqualTo(1);
    try (RacingNamespaceProxy proxy = new RacingNamespaceProxy(coordinator.restUrl(),
            () -> writeThroughNamespace(id, 100, 10, WriteParams.WriteMode.APPEND));
        RestNamespace racing = rest(proxy.url())) {
      // opened through the proxy: the Dataset commits through the namespace client it was opened with
      try (Dataset base = Dataset.open().allocator(allocator).namespaceClient(racing).tableId(id).build();
          Transaction txn = new Transaction(1, Append.builder().fragments(writeFragments(id, 10, 10)).build());
          Dataset committed = new CommitBuilder(base).namespaceClient(racing).tableId(id)
              .namespaceClientManagedVersioning(true).execute(txn)) {
        assertThat(proxy.created()).containsExactly(2L);
        assertThat(committed.version()).as("the staged number").isEqualTo(2);
        assertThat(committed.latestVersion()).isEqualTo(3);
        assertThat(LanceTables.readColumn(committed, "id")).as("version 1 plus its own rows, not version 3")
            .containsExactlyInAnyOrderElementsOf(ids(0, 20));
        assertThat(committed.getFragments()).extracting(org.lance.Fragment::getId).containsExactly(0, 1);
        try (Dataset atThree = openThroughNamespace(id)) {
          assertThat(atThree.version()).isEqualTo(3);
          assertThat(LanceTables.readColumn(atThree, "id")).containsExactlyInAnyOrderElementsOf(
              concat(ids(0, 20), ids(100, 110)));
          // the fragment the returned Dataset calls its own (1) holds the other writer's rows in the table
          assertThat(readFragment(atThree, 1)).containsExactlyInAnyOrderElementsOf(ids(100, 110));
        }
        committed.checkoutLatest();
        assertThat(committed.version()).isEqualTo(3);
        assertThat(committed.countRows()).isEqualTo(30);
      }
    }
  }

  /** A REST namespace client of its own at {@code url} (closed by the caller). */
  private RestNamespace rest(String url) {
    RestNamespace client = new RestNamespace();
    client.initialize(Map.of("uri", url), allocator);
    return client;
  }

  private static List<Object> readFragment(Dataset ds, int fragmentId) {
    List<Object> ids = new ArrayList<>();
    try (org.lance.ipc.LanceScanner scanner = ds.getFragment(fragmentId).newScan(
            new org.lance.ipc.ScanOptions.Builder().columns(List.of("id")).build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        org.apache.arrow.vector.BigIntVector column =
            (org.apache.arrow.vector.BigIntVector) reader.getVectorSchemaRoot().getVector("id");
        for (int i = 0; i < column.getValueCount(); i++) {
          ids.add(column.get(i));
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    return ids;
  }

  private static List<Object> concat(List<Object> a, List<Object> b) {
    List<Object> all = new ArrayList<>(a);
    all.addAll(b);
    return all;
  }

  private long commitManaged(Dataset base, List<String> id, long readVersion, List<FragmentMetadata> fragments) {
    try (Transaction txn = new Transaction(readVersion, Append.builder().fragments(fragments).build());
        Dataset committed = new CommitBuilder(base).namespaceClient(namespace).tableId(id)
            .namespaceClientManagedVersioning(true).execute(txn)) {
      return committed.version();
    }
  }

  private long writeThroughNamespace(List<String> id, long firstId, int count, WriteParams.WriteMode mode) {
    try (VectorSchemaRoot root = LanceTables.rows(allocator, firstId, count);
        ArrowReader reader = ManagedCoordinator.readerOf(root, allocator);
        Dataset ds = Dataset.write().allocator(allocator).reader(reader).namespaceClient(namespace).tableId(id)
            .mode(mode).execute()) {
      return ds.version();
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Data files written by Lance with the credentials the namespace vends (nothing else is configured). Lance 7.0.0's
   * Fragment.write uses the namespace only to refresh expiring credentials, so the initial ones are passed along.
   */
  private List<FragmentMetadata> writeFragments(List<String> id, long firstId, int count) {
    DescribeTableResponse table = namespace.describeTable(new DescribeTableRequest().id(id));
    try (VectorSchemaRoot root = LanceTables.rows(allocator, firstId, count)) {
      return Fragment.write().datasetUri(table.getLocation()).storageOptions(table.getStorageOptions())
          .allocator(allocator).data(root).namespaceClient(namespace).tableId(id).execute();
    }
  }

  private Dataset openThroughNamespace(List<String> id) {
    return Dataset.open().allocator(allocator).namespaceClient(namespace).tableId(id).build();
  }

  private static List<Object> ids(long from, long to) {
    return new ArrayList<>(LongStream.range(from, to).boxed().toList());
  }
}
