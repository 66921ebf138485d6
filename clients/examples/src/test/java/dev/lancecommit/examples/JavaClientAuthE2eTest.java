package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.client.CommitClient;
import dev.lancecommit.client.PermissionDeniedException;
import dev.lancecommit.client.TableId;
import dev.lancecommit.client.TableInfo;
import dev.lancecommit.client.UnauthenticatedException;
import dev.lancecommit.testing.lance.LanceTables;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The client's credentials against a coordinator with auth on: an API key, a bearer token, and none. */
class JavaClientAuthE2eTest {
  @TempDir Path dir;

  @Test
  void apiKeysAndBearerTokensIdentifyThePrincipal() {
    Map<String, String> auth = Map.of(
        "auth.enabled", "true",
        "auth.principals.writer.api-key", "writer-key-0123456789",
        "auth.grants.writer", "$:admin",
        "auth.principals.reader.token", "reader-token-0123456789",
        "auth.grants.reader", "authns:read");
    try (LocalCoordinator coordinator = LocalCoordinator.start(dir.resolve("warehouse"), auth);
        CommitClient writer = CommitClient.builder().uri(coordinator.url()).apiKey("writer-key-0123456789").build();
        CommitClient reader = CommitClient.builder().uri(coordinator.url()).bearerToken("reader-token-0123456789")
            .build();
        CommitClient anonymous = CommitClient.builder().uri(coordinator.url()).build()) {
      writer.createNamespace("authns");
      TableId id = TableId.of("authns", "t");
      TableInfo table = writer.declareTable(id);
      try (LanceTables lance = LanceTables.at(table.location(), table.storageOptions())) {
        assertThat(writer.createTable(id, lance.writeRows(0, 3), LanceTables.ROW_SCHEMA).version()).isEqualTo(1);
        assertThat(reader.describeTable(id).version()).hasValue(1);
        assertThatThrownBy(() -> reader.append(id, lance.writeRows(3, 1)))
            .isInstanceOfSatisfying(PermissionDeniedException.class, e -> {
              assertThat(e.httpStatus()).isEqualTo(403);
              assertThat(e.code()).isEqualTo(15);
            });
        assertThatThrownBy(() -> anonymous.describeTable(id))
            .isInstanceOfSatisfying(UnauthenticatedException.class, e -> {
              assertThat(e.httpStatus()).isEqualTo(401);
              assertThat(e.code()).isEqualTo(16);
            });
        assertThat(lance.versions()).containsExactly(1L);
      }
    }
  }
}
