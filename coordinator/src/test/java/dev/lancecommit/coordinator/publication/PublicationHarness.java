package dev.lancecommit.coordinator.publication;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.CreateMode;
import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.events.CommitEventReader;
import dev.lancecommit.events.KafkaCommitEventPublisher;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.testing.HandMadeTransactions;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

/**
 * One warehouse on a temp dir with a real catalog, the real commit service, and helpers to commit through it, to
 * write versions around it (as a rogue writer would), and to build publications against a real Kafka broker.
 */
final class PublicationHarness implements AutoCloseable {
  static final Duration WAIT = Duration.ofSeconds(60);
  /** A stock Lance writer stamps this; anything but the coordinator's library means "not governed". */
  static final Manifest.WriterVersion ROGUE_WRITER =
      Manifest.WriterVersion.newBuilder().setLibrary("lance").setVersion("7.0.0").build();

  final ObjectStores stores;
  final StorageLocation warehouse;
  final Catalog catalog;
  final String bootstrap;
  final String topic;
  private final ExecutorService workers = Executors.newFixedThreadPool(4);
  private final HandMadeTransactions transactions = new HandMadeTransactions();

  PublicationHarness(Path dir, String bootstrap) {
    this(dir, bootstrap, true);
  }

  /** @param createTopic false to leave creating the events topic to the publication (Kafka may be down now) */
  PublicationHarness(Path dir, String bootstrap, boolean createTopic) {
    this(ObjectStores.localOnly(), dir.toAbsolutePath().toString(), bootstrap, createTopic);
  }

  /** A warehouse at {@code warehouseUri} (an {@code s3://} one through {@code stores}), closed with the harness. */
  PublicationHarness(ObjectStores stores, String warehouseUri, String bootstrap, boolean createTopic) {
    this.stores = stores;
    this.warehouse = stores.resolve(warehouseUri);
    this.catalog = new Catalog(warehouse, Duration.ZERO, Clock.systemUTC());
    this.bootstrap = bootstrap;
    this.topic = "commits." + UUID.randomUUID();
    if (createTopic) {
      KafkaTopics.ensureTopic(bootstrap, topic);
    }
  }

  PublicationConfig.Builder config() {
    return PublicationConfig.builder(topic)
        .reconcileInterval(Duration.ofHours(1)) // tests trigger passes themselves unless they say otherwise
        .progressInterval(Duration.ofMillis(50))
        .retryBackoffMin(Duration.ofMillis(50))
        .retryBackoffMax(Duration.ofMillis(500))
        .gapReconcileDelay(Duration.ofMillis(20))
        .liveGrace(Duration.ofMillis(300))
        .shutdownDrain(Duration.ofSeconds(30))
        .kafkaTimeout(Duration.ofSeconds(30));
  }

  KafkaCommitEventPublisher kafkaPublisher() {
    return KafkaCommitEventPublisher.builder(bootstrap).topic(topic).publishTimeout(Duration.ofSeconds(2)).build();
  }

  Publication startPublication(PublicationConfig config) {
    return startPublication(config, stores::resolve);
  }

  /** A publication whose reconciler reaches the tables' storage through {@code tableStores}. */
  Publication startPublication(PublicationConfig config, Function<String, StorageLocation> tableStores) {
    return Publication.start(config, bootstrap, kafkaPublisher(), tableStores,
        new CatalogTableSource(catalog, stores::resolve));
  }

  TableRef declareTable(String namespace, String name) {
    catalog.createNamespace(List.of(namespace), CreateMode.EXIST_OK, Map.of());
    return catalog.declareTable(List.of(namespace, name), Optional.empty(), Map.of()).toRef();
  }

  LaneCommitService commitService(CommitEventSink events) {
    // Hand-made transactions name data files that are never written: file checks off.
    CommitSettings settings = new CommitSettings(1000, 50, 3, 64, WriterVersions.coordinator(), "2.1",
        ManifestNaming.Scheme.V2).withVerifyFiles(false);
    return new LaneCommitService(stores::resolve, settings, events, workers, Clock.systemUTC(),
        Duration.ofMinutes(10));
  }

  static CommitResult commit(LaneCommitService service, TableRef table, Transaction txn) {
    return service.commit(table, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "alice"))
        .orTimeout(WAIT.toSeconds(), TimeUnit.SECONDS)
        .join();
  }

  /** Removes the manifest of {@code version} (V2 name) of the table, as a cleanup of old versions does. */
  void removeVersion(TableRef table, long version) {
    storage(table).deleteVersion(version, ManifestNaming.Scheme.V2);
  }

  /** The versions of the table's branch ({@code tree/{branch}} for a branch). */
  TableOperations storage(TableRef table) {
    return TableOperations.of(stores.resolve(table.branchRoot()));
  }

  Transaction create() {
    return transactions.create();
  }

  Transaction append(long readVersion) {
    return transactions.append(readVersion);
  }

  DataFragment fragment() {
    return transactions.fragment();
  }

  /**
   * Appends one version the way a writer bypassing the coordinator would: build the next manifest from the latest
   * one, write the .txn and create the manifest, retrying on the next version when it is taken.
   *
   * @return the version written
   */
  long writeAround(TableRef table, Manifest.WriterVersion writer) {
    return writeAround(table, writer, Map.of());
  }

  /** {@link #writeAround(TableRef, Manifest.WriterVersion)} with transaction properties. */
  long writeAround(TableRef table, Manifest.WriterVersion writer, Map<String, String> properties) {
    TableOperations storage = storage(table);
    StorageLocation root = storage.location();
    while (true) {
      TableVersions listing = storage.versions();
      long latest = listing.latest().orElseThrow();
      ManifestNaming.Scheme scheme = listing.scheme().orElseThrow();
      TableState current = storage.readManifest(latest, scheme).orElseThrow().tableState();
      Transaction txn = append(latest).toBuilder().putAllTransactionProperties(properties).build();
      long version = latest + 1;
      CommitContext ctx = new CommitContext(version, Instant.now(), TransactionFiles.fileName(txn), writer, false,
          "2.1");
      TableState next = ManifestBuilder.build(current, txn, ctx);
      root.store().put(root.key(TransactionFiles.path(txn)), TransactionFiles.encode(txn));
      try {
        root.store().putIfAbsent(root.key(ManifestNaming.path(scheme, version)),
            new ManifestFile(next.manifest(), next.indices(), Optional.of(txn)).encode());
        return version;
      } catch (ObjectAlreadyExistsException taken) {
        // someone committed meanwhile: build on the new latest
      }
    }
  }

  /** Every event of the table on the topic, in log order (the whole topic is read to its end). */
  List<CommitEvent> events(TableRef table) {
    try (CommitEventReader reader = new CommitEventReader(bootstrap, topic)) {
      return reader.readTable(table.id(), WAIT);
    }
  }

  /** Waits until the topic holds at least {@code count} events of the table; returns them in log order. */
  List<CommitEvent> awaitEvents(TableRef table, int count) {
    try (CommitEventReader reader = new CommitEventReader(bootstrap, topic)) {
      return reader.readTable(table.id(), count, WAIT);
    }
  }

  Map<String, Long> progressOnKafka(PublicationConfig config) {
    return PublicationProgress.read(bootstrap, config.progressTopic(), WAIT);
  }

  @Override
  public void close() throws InterruptedException {
    workers.shutdownNow();
    workers.awaitTermination(10, TimeUnit.SECONDS);
    stores.close();
  }
}
