package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.WriteParams;

/** Register and describe datasets written by the real Lance library, in both manifest naming schemes. */
class LanceDatasetRoutesTest extends RestServerFixture {
  private static final Schema SCHEMA = new Schema(List.of(
      new Field("id", FieldType.nullable(new ArrowType.Int(64, true)), null)));

  @Test
  void registerAndDescribeRealDatasets() throws Exception {
    post("/v1/namespace/ns/create", "{}");
    try (BufferAllocator allocator = new RootAllocator()) {
      for (boolean v2 : new boolean[] {false, true}) {
        String name = v2 ? "v2" : "v1";
        Path location = warehouse.resolve("lance/" + name + ".lance");
        WriteParams params = new WriteParams.Builder().withEnableV2ManifestPaths(v2).build();
        try (Dataset dataset = Dataset.create(allocator, location.toString(), SCHEMA, params)) {
          assertThat(dataset.version()).isEqualTo(1);
        }
        assertThat(manifestNames(location)).allMatch(n -> (n.length() == 29) == v2);

        Reply registered = post("/v1/table/ns$" + name + "/register",
            new JsonObject().put("location", location.toString()));
        assertThat(registered.status()).as(registered.body()).isEqualTo(200);
        JsonObject described = post("/v1/table/ns$" + name + "/describe?check_declared=true", "{}").json();
        assertThat(described.getLong("version")).isEqualTo(1L);
        assertThat(described.getBoolean("is_only_declared")).isFalse();

        try (Dataset dataset = Dataset.open(location.toString(), allocator)) {
          dataset.updateConfig(Map.of("lancecommit.test", name));
          dataset.updateConfig(Map.of("lancecommit.test", name + "-again"));
          assertThat(dataset.latestVersion()).isEqualTo(3);
        }
        assertThat(post("/v1/table/ns$" + name + "/describe", "{}").json().getLong("version")).isEqualTo(3L);
      }
    }
  }

  private static List<String> manifestNames(Path location) throws Exception {
    try (Stream<Path> files = Files.list(location.resolve("_versions"))) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".manifest")).toList();
    }
  }
}
