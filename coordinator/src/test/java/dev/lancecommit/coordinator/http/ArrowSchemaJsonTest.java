package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.Field;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ArrowSchemaJsonTest {

  @Test
  void canonicalDecimalsOfSemanticTypesTablesReportTheirDefaultLayout() {
    JsonObject schema = ArrowSchemaJson.schema(List.of(
        Field.newBuilder().setId(0).setParentId(-1).setName("small").setLogicalType("decimal:10:2").build(),
        Field.newBuilder().setId(1).setParentId(-1).setName("wide").setLogicalType("decimal:40:5").build(),
        Field.newBuilder().setId(2).setParentId(-1).setName("legacy").setLogicalType("decimal:256:10:2").build()),
        Map.of());
    assertThat(schema.getJsonArray("fields").stream().map(f -> ((JsonObject) f).getJsonObject("type")).toList())
        .containsExactly(
            new JsonObject().put("type", "decimal128").put("length", 10002L),
            new JsonObject().put("type", "decimal256").put("length", 40005L),
            new JsonObject().put("type", "decimal256").put("length", 10002L));
  }
}
