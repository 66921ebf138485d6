package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.namespace.client.apache.ApiClient;
import org.lance.namespace.client.apache.ApiException;
import org.lance.namespace.client.apache.api.TableApi;
import org.lance.namespace.client.apache.api.TagApi;
import org.lance.namespace.model.BatchDeleteTableVersionsRequest;
import org.lance.namespace.model.CreateTableTagRequest;
import org.lance.namespace.model.DeleteTableTagRequest;
import org.lance.namespace.model.GetTableStatsRequest;
import org.lance.namespace.model.GetTableStatsResponse;
import org.lance.namespace.model.GetTableTagVersionRequest;
import org.lance.namespace.model.ListTableTagsResponse;
import org.lance.namespace.model.RestoreTableRequest;
import org.lance.namespace.model.TableVersion;
import org.lance.namespace.model.UpdateTableTagRequest;
import org.lance.namespace.model.VersionRange;

/**
 * RestoreTable, GetTableStats, BatchDeleteTableVersions and the tag operations driven by the stock Lance namespace
 * Java client ({@code lance-namespace-apache-client} 0.7.7, the one lance-core ships with; it has no branch API): its
 * requests and its response models work unchanged, and errors reach it with the spec's codes.
 */
class StockClientRefsTest extends LaneServerFixture {
  private TableApi tables;
  private TagApi tags;
  private LanceTables lance;

  @BeforeEach
  void clientAndTable() {
    ApiClient client = new ApiClient();
    client.setBasePath("http://127.0.0.1:" + port);
    tables = new TableApi(client);
    tags = new TagApi(client);
    post("/v1/namespace/ns/create", "{}").ok();
    lance = LanceTables.local(Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location")));
    commit(TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5))));
    commit(TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(5, 5))));
    commit(TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(10, 5))));
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void tagsRestoreStatsAndVersionDeletionThroughTheStockClient() throws Exception {
    tags.createTableTag("ns$t", new CreateTableTagRequest().tag("release").version(1L), null);
    tables.createTableTag("ns$t", new CreateTableTagRequest().tag("other").version(2L), null);
    ListTableTagsResponse listed = tags.listTableTags("ns$t", null, null, null);
    assertThat(listed.getTags()).containsOnlyKeys("release", "other");
    assertThat(listed.getTags().get("release").getVersion()).isEqualTo(1L);
    assertThat(listed.getTags().get("release").getManifestSize()).isPositive();
    assertThat(listed.getTags().get("release").getBranch()).isNull();
    ListTableTagsResponse firstPage = tags.listTableTags("ns$t", null, null, 1);
    assertThat(firstPage.getTags()).containsOnlyKeys("other");
    assertThat(tags.listTableTags("ns$t", null, firstPage.getPageToken(), 1).getTags()).containsOnlyKeys("release");
    tags.updateTableTag("ns$t", new UpdateTableTagRequest().tag("release").version(2L), null);
    assertThat(tags.getTableTagVersion("ns$t", new GetTableTagVersionRequest().tag("release"), null).getVersion())
        .isEqualTo(2L);
    tags.deleteTableTag("ns$t", new DeleteTableTagRequest().tag("other"), null);

    String restore = tables.restoreTable("ns$t", new RestoreTableRequest().version(1L), null).getTransactionId();
    assertThat(restore).isNotBlank();
    assertThat(lance.latestVersion()).isEqualTo(4);
    assertThat(lance.readIds(4)).hasSize(5);

    GetTableStatsResponse stats = tables.getTableStats("ns$t", new GetTableStatsRequest(), null);
    assertThat(stats.getNumRows()).isEqualTo(5L);
    assertThat(stats.getNumIndices()).isZero();
    assertThat(stats.getTotalBytes()).isPositive();
    assertThat(stats.getFragmentStats().getNumFragments()).isEqualTo(1L);
    assertThat(stats.getFragmentStats().getLengths().getP50()).isEqualTo(5L);

    assertThat(tables.batchDeleteTableVersions("ns$t", new BatchDeleteTableVersionsRequest()
        .ranges(List.of(new VersionRange().startVersion(0L).endVersion(2L))), null).getDeletedCount())
        .isEqualTo(1L);
    assertThat(tables.listTableVersions("ns$t", null, null, null, null).getVersions())
        .extracting(TableVersion::getVersion).containsExactly(2L, 3L, 4L);
  }

  @Test
  void refusalsReachTheStockClientWithTheSpecCodes() {
    assertCode(() -> tags.getTableTagVersion("ns$t", new GetTableTagVersionRequest().tag("ghost"), null), 404, 8);
    assertCode(() -> tags.createTableTag("ns$t", new CreateTableTagRequest().tag("x").version(9L), null), 404, 11);
    assertCode(() -> tables.restoreTable("ns$t", new RestoreTableRequest().version(9L), null), 404, 11);
    assertCode(() -> tables.batchDeleteTableVersions("ns$t", new BatchDeleteTableVersionsRequest()
        .ranges(List.of(new VersionRange().startVersion(0L).endVersion(-1L))), null), 400, 13);
    assertCode(() -> tables.getTableStats("ns$ghost", new GetTableStatsRequest(), null), 404, 4);
  }

  private static void assertCode(ThrowingCall call, int status, int code) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(ApiException.class, e -> {
      assertThat(e.getCode()).isEqualTo(status);
      assertThat(new JsonObject(e.getResponseBody()).getInteger("code")).isEqualTo(code);
    });
  }

  private interface ThrowingCall {
    void run() throws Exception;
  }

  private void commit(Transaction txn) {
    assertThat(postBytes("/v1/table/ns$t/commit", txn.toByteArray()).status()).isEqualTo(200);
  }
}
