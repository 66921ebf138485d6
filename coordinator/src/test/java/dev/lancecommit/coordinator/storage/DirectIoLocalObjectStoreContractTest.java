package dev.lancecommit.coordinator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitSettings;
import dev.lancecommit.coordinator.commit.LaneCommitService;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.time.Duration;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.UUID;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * A local store that writes every flushed file with direct I/O ({@code store.local.direct-io}, here from 0 bytes
 * rather than {@link LocalObjectStore#DIRECT_IO_MIN_BYTES}) keeps the whole object-store contract, and writes exactly
 * the bytes it was given whatever their length against the filesystem's block size.
 */
class DirectIoLocalObjectStoreContractTest extends ObjectStoreContractTest {
  @TempDir
  Path root;

  private LocalObjectStore store;

  @BeforeEach
  void open() {
    store = new LocalObjectStore(root, true, true, 0);
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @ParameterizedTest
  @ValueSource(ints = {0, 1, 511, 4095, 4096, 4097, 65_536, 3_000_007})
  void everyWriteHoldsExactlyItsBytes(int length) throws Exception {
    byte[] data = new byte[length];
    new Random(length).nextBytes(data);
    long before = store.directWrites();

    store.put("t/put-" + length, data);
    store.putIfAbsent("t/create-" + length, data);
    store.stagePutIfAbsent("t/staged-" + length, data).create();

    assertThat(store.directWrites() - before).as("each write went through direct I/O").isEqualTo(3);
    for (String key : new String[] {"t/put-", "t/create-", "t/staged-"}) {
      Path file = root.resolve(key + length);
      assertThat(Files.size(file)).isEqualTo(length);
      assertThat(Files.readAllBytes(file)).isEqualTo(data);
      assertThat(store.get(key + length)).hasValueSatisfying(b -> assertThat(b).isEqualTo(data));
    }
    try (var names = Files.list(root.resolve("t"))) {
      assertThat(names.map(p -> p.getFileName().toString()))
          .as("no staged file left behind").noneMatch(n -> n.startsWith(ObjectKeys.RESERVED_SEGMENT_PREFIX));
    }
  }

  @Test
  void theDefaultStoreWritesOnlyLargeFlushedFilesDirect() {
    LocalObjectStore defaults = new LocalObjectStore(root.resolve("defaults"));
    byte[] large = new byte[LocalObjectStore.DIRECT_IO_MIN_BYTES + 5];
    byte[] small = new byte[LocalObjectStore.DIRECT_IO_MIN_BYTES - 1];

    defaults.stagePutIfAbsent("t/_versions/1.manifest", small).create();
    defaults.putUnflushed("t/_versions/copy", large);
    assertThat(defaults.directWrites()).as("small or unflushed writes are buffered").isZero();

    defaults.stagePutIfAbsent("t/_versions/2.manifest", large).create();
    assertThat(defaults.directWrites()).isEqualTo(1);
    assertThat(defaults.get("t/_versions/2.manifest")).hasValueSatisfying(b -> assertThat(b).isEqualTo(large));

    LocalObjectStore buffered = LocalObjectStore.withFsync(root.resolve("buffered"), true, false);
    buffered.stagePutIfAbsent("t/_versions/1.manifest", large).create();
    assertThat(buffered.directWrites()).as("store.local.direct-io=false").isZero();
  }

  @Test
  void stockLanceReadsAndCommitsOnTopOfManifestsWrittenDirect() throws Exception {
    String key = "wh/ns/direct.lance";
    StorageLocation location = new StorageLocation(store, key);
    ExecutorService executor = Executors.newFixedThreadPool(4);
    LaneCommitService lanes = new LaneCommitService(l -> location, new CommitSettings(100, 5, 3, 64,
        WriterVersions.coordinator(), "2.1", ManifestNaming.Scheme.V2), CommitEventSink.discard(), executor,
        Clock.systemUTC(), Duration.ofMinutes(10));
    TableRef ref = new TableRef(List.of("ns", "direct"), location.uri(), UUID.randomUUID().toString());
    try (LanceTables lance = LanceTables.local(root.resolve(key))) {
      long before = store.directWrites();
      long version = commit(lanes, ref,
          TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA), LanceProtos.fragments(lance.writeRows(0, 10))));
      for (int i = 1; i <= 3; i++) {
        version = commit(lanes, ref, TransactionFactory.append(version, LanceProtos.fragments(lance.writeRows(i * 100, 5))));
      }
      assertThat(store.directWrites() - before).as("manifests (and .txn files) written direct").isGreaterThanOrEqualTo(4);
      assertThat(lance.countRows(version)).isEqualTo(25);

      long lanceVersion = lance.appendWithLance(1000, 7);
      assertThat(lanceVersion).isEqualTo(version + 1);
      assertThat(lance.countRows(lanceVersion)).isEqualTo(32);
    } finally {
      executor.shutdownNow();
      executor.awaitTermination(10, TimeUnit.SECONDS);
    }
  }

  private static long commit(LaneCommitService lanes, TableRef ref, Transaction txn) throws Exception {
    return lanes.commit(ref, new CommitRequest(txn.toByteArray(), Optional.empty(), true, "tester"))
        .get(60, TimeUnit.SECONDS).version();
  }
}
