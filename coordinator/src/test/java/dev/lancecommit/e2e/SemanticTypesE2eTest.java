package dev.lancecommit.e2e;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.SemanticTypes;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Semantic-types tables through the service: a coordinator configured with the flag's bit upgrades a legacy table
 * with one CommitTable call, keeps committing to it under the contract's rules, and stamps the flag into both words
 * so that stock Lance 7.0.0, which does not know the bit, refuses the table instead of misreading it. A coordinator
 * on the same warehouse without the bit refuses the table too.
 */
class SemanticTypesE2eTest {
  private static final long BIT = 1L << 20;

  @TempDir
  static Path work;
  private static Coordinator withBit;
  private static Coordinator withoutBit;

  @BeforeAll
  static void start() {
    String warehouse = work.resolve("warehouse").toString();
    withBit = Coordinator.start(CoordinatorConfig.builder().port(0).warehouse(warehouse).kafka("none")
        .set(CoordinatorConfig.FORMAT_SEMANTIC_TYPES_FLAG, Long.toString(BIT)).build());
    withoutBit = Coordinator.start(CoordinatorConfig.builder().port(0).warehouse(warehouse).kafka("none").build());
  }

  @AfterAll
  static void stop() {
    withBit.close();
    withoutBit.close();
  }

  @Test
  void anUpgradedTableKeepsItsFlagAndStockLanceWithoutTheBitRefusesIt() throws IOException {
    try (E2eTable table = E2eTable.declare(service(withBit), "semantic")) {
      table.create(0, 4);
      table.append(1, 4, 4);

      CommitApi.Response upgraded = upgradeCall(table.api(), table);
      assertThat(upgraded.status()).as("%s", upgraded).isEqualTo(200);
      assertThat(upgraded.version()).isEqualTo(3);
      assertThat(upgraded.body().get("operation").asText()).isEqualTo("Project");
      CommitApi.Response again = upgradeCall(table.api(), table);
      assertThat(again.status()).isEqualTo(400);
      assertThat(again.body().get("detail").asText()).contains("already follows the semantic-type contract");
      Manifest v3 = manifest(upgraded);
      assertThat(v3.getReaderFeatureFlags() & BIT).isEqualTo(BIT);
      assertThat(v3.getWriterFeatureFlags() & BIT).isEqualTo(BIT);

      // The versions before the upgrade stay readable by stock Lance; the flagged one is refused, not misread.
      assertThat(table.lance().countRows(2)).isEqualTo(8);
      assertThatThrownBy(() -> table.lance().countRows(3))
          .hasMessageContaining("cannot be read by this version of Lance")
          .hasMessageContaining("Flags: " + BIT);

      CommitApi.Response appended = table.append(3, 8, 4);
      assertThat(appended.version()).isEqualTo(4);
      Manifest v4 = manifest(appended);
      assertThat(v4.getReaderFeatureFlags() & v4.getWriterFeatureFlags() & BIT).isEqualTo(BIT);
      assertThat(v4.getFragmentsCount()).isEqualTo(3);

      // A layout choice is a metadata-only change here; a value-domain change is not.
      List<Field> relaid = withEncoding(v4.getFieldsList(), "value", "large_utf8");
      CommitApi.Response relayout = table.api().commit(table.id(), project(4, relaid));
      assertThat(relayout.status()).as("%s", relayout).isEqualTo(200);

      List<Field> retyped = new ArrayList<>(manifest(relayout).getFieldsList());
      retyped.replaceAll(f -> f.getName().equals("id") ? f.toBuilder().setLogicalType("int32").build() : f);
      CommitApi.Response refused = table.api().commit(table.id(), project(5, retyped));
      assertThat(refused.status()).isEqualTo(400);
      assertThat(refused.code()).isEqualTo(20);
      assertThat(refused.body().get("detail").asText()).contains("semantic type of field 'id'");

      List<Field> badEncoding = withEncoding(manifest(relayout).getFieldsList(), "id", "utf8");
      CommitApi.Response refusedEncoding = table.api().commit(table.id(), project(5, badEncoding));
      assertThat(refusedEncoding.status()).isEqualTo(400);
      assertThat(refusedEncoding.code()).isEqualTo(20);
      assertThat(refusedEncoding.body().get("detail").asText()).contains("not an output encoding of semantic type int64");
      assertThat(table.describedVersion()).isEqualTo(5);

      // Same warehouse, a coordinator that does not know the bit: the table is refused, nothing is written.
      CommitApi other = new CommitApi(withoutBit.restUrl());
      CommitApi.Response unknown = other.commit(table.id(), table.appendTransaction(5, 12, 2));
      assertThat(unknown.status()).as("%s", unknown).isEqualTo(409);
      assertThat(unknown.code()).isEqualTo(19);
      assertThat(unknown.body().get("detail").asText()).contains(Long.toString(BIT));
      assertThat(table.describedVersion()).isEqualTo(5);
    }
  }

  @Test
  void aCoordinatorWithoutTheBitCannotUpgradeAndChangesNothing() {
    try (E2eTable table = E2eTable.declare(service(withoutBit), "legacy")) {
      table.create(0, 4);
      CommitApi.Response refused = upgradeCall(table.api(), table);
      assertThat(refused.status()).as("%s", refused).isEqualTo(400);
      assertThat(refused.code()).isEqualTo(13);
      assertThat(refused.body().get("detail").asText()).contains("format.semantic-types.flag");
      assertThat(table.describedVersion()).isEqualTo(1);
      assertThat(table.lance().countRows(1)).isEqualTo(4);
    }
  }

  @Test
  void theUpgradeCanAlsoBeCommittedAsATransactionAndANewTableCanBeBornFlagged() throws IOException {
    try (E2eTable upgradedByHand = E2eTable.declare(service(withBit), "byhand");
        E2eTable born = E2eTable.declare(service(withBit), "born")) {
      upgradedByHand.create(0, 4);
      CommitApi.Response upgraded = upgradedByHand.api().commit(upgradedByHand.id(), upgrade(1, rowSchema()));
      assertThat(upgraded.status()).as("%s", upgraded).isEqualTo(200);
      assertThat(manifest(upgraded).getReaderFeatureFlags() & BIT).isEqualTo(BIT);

      Transaction create = born.createTransaction(0, 4).toBuilder()
          .putTransactionProperties(SemanticTypes.ENABLE_PROPERTY, SemanticTypes.ENABLE_VALUE).build();
      CommitApi.Response created = born.api().commit(born.id(), create);
      assertThat(created.status()).as("%s", created).isEqualTo(200);
      assertThat(created.version()).isEqualTo(1);
      Manifest v1 = manifest(created);
      assertThat(v1.getReaderFeatureFlags() & v1.getWriterFeatureFlags() & BIT).isEqualTo(BIT);
    }
  }

  private static CommitApi.Response upgradeCall(CommitApi api, E2eTable table) {
    return api.post("/v1/table/" + CommitApi.joined(table.id()) + "/semantic-types/upgrade", new byte[0],
        CommitApi.JSON);
  }

  private static E2eServices.Service service(Coordinator coordinator) {
    return new E2eServices.Service(E2eServices.Store.LOCAL, coordinator, new CommitApi(coordinator.restUrl()),
        work.resolve("warehouse").toString(), Map.of());
  }

  /** The schema {@link E2eTable#create} gives the table: id int64, value string (both canonical names). */
  private static List<Field> rowSchema() {
    return LanceProtos.schema(LanceTables.ROW_SCHEMA);
  }

  private static Transaction upgrade(long readVersion, List<Field> schema) {
    return project(readVersion, schema).toBuilder()
        .putTransactionProperties(SemanticTypes.ENABLE_PROPERTY, SemanticTypes.ENABLE_VALUE).build();
  }

  private static Transaction project(long readVersion, List<Field> schema) {
    return Transaction.newBuilder().setUuid(TransactionFactory.newUuid()).setReadVersion(readVersion)
        .setProject(Transaction.Project.newBuilder().addAllSchema(schema)).build();
  }

  private static List<Field> withEncoding(List<Field> fields, String name, String encoding) {
    List<Field> changed = new ArrayList<>();
    for (Field field : fields) {
      changed.add(field.getName().equals(name) ? field.toBuilder()
          .putMetadata(SemanticTypes.OUTPUT_ENCODING_KEY, ByteString.copyFromUtf8(encoding)).build() : field);
    }
    return changed;
  }

  private static Manifest manifest(CommitApi.Response response) throws IOException {
    String path = response.body().get("manifest_path").asText();
    Path file = path.startsWith("file:") ? Path.of(URI.create(path)) : Path.of(path);
    return ManifestFile.decode(Files.readAllBytes(file)).manifest();
  }
}
