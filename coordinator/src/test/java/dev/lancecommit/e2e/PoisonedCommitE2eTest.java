package dev.lancecommit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.testing.SettledFiles;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.EnumSource;

/**
 * Issue 14 end to end, on a local warehouse and on S3: a commit naming a file that is not in the table is refused
 * with 400/13 naming the file and writes nothing, the same transaction commits once the file is there, and
 * {@code POST /v1/table/{id}/verify} finds a file lost after its version was written, after which a Restore through
 * CommitTable takes the table back to its last good version.
 */
@ExtendWith(E2eServices.class)
class PoisonedCommitE2eTest {

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void aCommitNamingAMissingFileIsRefusedAndTheSameTransactionCommitsOnceTheFileIsThere(E2eServices.Store kind,
      E2eServices services) {
    E2eServices.Service service = services.service(kind);
    try (E2eTable table = E2eTable.declare(service, "poison");
        ObjectStores stores = new ObjectStores(services.s3Config())) {
      table.create(0, 10);
      Transaction append = table.appendTransaction(1, 100, 5);
      DataFile file = append.getAppend().getFragments(0).getFiles(0);
      StorageLocation location = stores.resolve(table.location());
      ObjectStore store = location.store();
      String key = location.key("data/" + file.getPath());
      byte[] bytes = store.get(key).orElseThrow();
      store.delete(key);
      Map<String, Long> before = metadataFiles(location);

      // the flipped byte of issue 14: a path the writer never wrote, protobuf body
      Transaction flipped = append.toBuilder().setUuid(TransactionFactory.newUuid()).build();
      CommitApi.Response missing = table.api().commit(table.id(), flipped);
      assertThat(missing.status()).as(missing.toString()).isEqualTo(400);
      assertThat(missing.code()).isEqualTo(13);
      assertThat(missing.body().get("detail").asText()).contains(location.uri("data/" + file.getPath()))
          .contains("is not there");
      // the JSON form is refused the same way
      CommitApi.Response viaJson = table.api().commitJson(table.id(), append.toByteArray());
      assertThat(viaJson.status()).isEqualTo(400);
      assertThat(viaJson.code()).isEqualTo(13);
      assertThat(metadataFiles(location)).isEqualTo(before);

      store.put(key, bytes);
      CommitApi.Response committed = table.api().commitJson(table.id(), append.toByteArray());
      assertThat(committed.status()).as(committed.toString()).isEqualTo(200);
      assertThat(committed.version()).isEqualTo(2);
      assertThat(table.lance().countRows(2)).isEqualTo(15);
    }
  }

  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void verifyFindsALostFileAndARestoreGoesBackToTheLastGoodVersion(E2eServices.Store kind, E2eServices services) {
    E2eServices.Service service = services.service(kind);
    try (E2eTable table = E2eTable.declare(service, "verify");
        ObjectStores stores = new ObjectStores(services.s3Config())) {
      table.create(0, 10);
      Transaction append = table.appendTransaction(1, 100, 5);
      assertThat(table.api().commit(table.id(), append).status()).isEqualTo(200);
      table.append(2, 200, 5);
      JsonNode healthy = verify(table, Optional.empty());
      assertThat(healthy.get("ok").asBoolean()).isTrue();
      assertThat(healthy.get("version").asLong()).isEqualTo(3);
      assertThat(healthy.get("files_checked").asInt()).isEqualTo(3);

      // the data file version 2 added is lost (a bad cleanup, a lifecycle rule): versions 2 and 3 are damaged
      StorageLocation location = stores.resolve(table.location());
      String lost = "data/" + append.getAppend().getFragments(0).getFiles(0).getPath();
      location.store().delete(location.key(lost));
      JsonNode damaged = verify(table, Optional.empty());
      assertThat(damaged.get("ok").asBoolean()).isFalse();
      assertThat(damaged.get("problems")).singleElement().satisfies(problem -> {
        assertThat(problem.get("file").asText()).isEqualTo(location.uri(lost));
        assertThat(problem.get("problem").asText()).isEqualTo("is not there");
      });
      assertThat(verify(table, Optional.of(2L)).get("ok").asBoolean()).isFalse();
      assertThat(verify(table, Optional.of(1L)).get("ok").asBoolean()).isTrue();

      // back to the last good version, the way README describes
      Transaction restore = Transaction.newBuilder().setReadVersion(3).setUuid(TransactionFactory.newUuid())
          .setRestore(Transaction.Restore.newBuilder().setVersion(1)).build();
      CommitApi.Response restored = table.api().commit(table.id(), restore);
      assertThat(restored.status()).as(restored.toString()).isEqualTo(200);
      assertThat(restored.version()).isEqualTo(4);
      assertThat(verify(table, Optional.empty()).get("ok").asBoolean()).isTrue();
      assertThat(table.lance().readIds(4)).hasSize(10);

      CommitApi.Response noSuchVersion = table.api().postJson("/v1/table/" + CommitApi.joined(table.id())
          + "/verify", "{\"version\": 99}");
      assertThat(noSuchVersion.status()).isEqualTo(404);
      assertThat(noSuchVersion.code()).isEqualTo(11);
    }
  }

  /**
   * The fuzz suite's find: protobuf-java keeps a field whose wire type is not the declared one as an unknown field and
   * writes it back, while stock Lance (prost) reads a varint under the {@code transaction_properties} map as the length
   * of an entry, so a version recording it could no longer be listed or opened. Refused before anything is written.
   */
  @ParameterizedTest
  @EnumSource(E2eServices.Store.class)
  void aFieldSentWithAnotherWireTypeIsRefusedBeforeItCanReachAManifest(E2eServices.Store kind,
      E2eServices services) {
    E2eServices.Service service = services.service(kind);
    try (E2eTable table = E2eTable.declare(service, "wiretype");
        ObjectStores stores = new ObjectStores(services.s3Config())) {
      table.create(0, 10);
      Transaction append = table.appendTransaction(1, 100, 5);
      StorageLocation location = stores.resolve(table.location());
      Map<String, Long> before = metadataFiles(location);
      byte[] good = append.toByteArray();
      byte[] misencoded = java.util.Arrays.copyOf(good, good.length + 2);
      misencoded[good.length] = 0x20; // field 4 (transaction_properties), wire type varint
      misencoded[good.length + 1] = 0x7F;

      for (CommitApi.Response refused : List.of(
          table.api().commitBytes(table.id(), misencoded, "application/x-protobuf"),
          table.api().commitJson(table.id(), misencoded))) {
        assertThat(refused.status()).as(refused.toString()).isEqualTo(400);
        assertThat(refused.code()).isEqualTo(13);
        assertThat(refused.body().get("detail").asText()).contains("transaction_properties (field 4");
      }
      assertThat(metadataFiles(location)).isEqualTo(before);
      assertThat(table.lance().versions()).containsExactly(1L);

      CommitApi.Response committed = table.api().commit(table.id(), append);
      assertThat(committed.status()).as(committed.toString()).isEqualTo(200);
      assertThat(table.lance().versions()).containsExactly(1L, 2L);
      assertThat(table.lance().countRows(2)).isEqualTo(15);
    }
  }

  private static JsonNode verify(E2eTable table, Optional<Long> version) {
    CommitApi.Response r = table.api().postJson("/v1/table/" + CommitApi.joined(table.id()) + "/verify",
        version.map(v -> "{\"version\": " + v + "}").orElse("{}"));
    assertThat(r.status()).as(r.toString()).isEqualTo(200);
    return r.body();
  }

  /** Read once two listings agree ({@link SettledFiles}): the lane moves the version hint after it answers. */
  private static Map<String, Long> metadataFiles(StorageLocation location) {
    return SettledFiles.settled(() -> listMetadataFiles(location), "metadata files of " + location);
  }

  private static Map<String, Long> listMetadataFiles(StorageLocation location) {
    Map<String, Long> files = new TreeMap<>();
    for (String dir : List.of("_versions", "_transactions")) {
      location.store().list(location.key(dir)).forEach(info -> files.put(info.key(), info.size()));
    }
    return files;
  }
}
