package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.namespace.TableEntry;
import io.vertx.core.json.JsonObject;
import java.time.Duration;
import java.util.Base64;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** CommitTable on a catalog that caches table entries, as the coordinator's does. */
class CachedTableCommitRouteTest extends RestServerFixture {
  private static final byte[] TXN = {0x08, 0x05, 0x12, 0x24, 0x00, (byte) 0xff, 0x7f};
  private static final String COMMIT = "/v1/table/ns$t/commit";

  private TableEntry table;

  @Override
  Duration catalogCacheTtl() {
    return Duration.ofMinutes(1);
  }

  @BeforeEach
  void table() {
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$t/declare", "{}");
    table = catalog.loadTable(List.of("ns", "t")).orElseThrow();
  }

  @Test
  void theAnswerCarriesItsGroupSizeAndACachedTableIsCommittedFromTheEventLoop() {
    commits.answerWith(new CommitResult(6, 4, "8d5c2e6e-0bd4-4c79-9d32-4a0bb7c3f9a1",
        table.location() + "/_versions/18446744073709551609.manifest", "Append", 3));
    String json = new JsonObject().put("transaction", Base64.getEncoder().encodeToString(TXN)).encode();
    Reply reply = post(COMMIT, json);
    assertThat(reply.status()).isEqualTo(200);
    assertThat(reply.json().getInteger("group_size")).isEqualTo(3);
    // the same table again: its catalog entry is cached, so the commit goes to the service from the event loop
    assertThat(post(COMMIT, json).status()).isEqualTo(200);
    assertThat(commits.calls()).hasSize(2);
    assertThat(commits.calls().get(1).table()).isEqualTo(commits.calls().get(0).table());
    assertThat(commits.threads()).element(1).asString().startsWith("vert.x-eventloop-thread-");
  }

}
