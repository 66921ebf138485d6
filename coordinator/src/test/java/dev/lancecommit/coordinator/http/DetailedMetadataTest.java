package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.DateUnit;
import org.apache.arrow.vector.types.FloatingPointPrecision;
import org.apache.arrow.vector.types.TimeUnit;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.FieldType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.WriteParams;

/** DescribeTable with load_detailed_metadata against datasets written by real lance-core 7.0.0. */
class DetailedMetadataTest extends RestServerFixture {

  private static Field field(String name, ArrowType type, boolean nullable, Field... children) {
    return new Field(name, new FieldType(nullable, type, null), List.of(children));
  }

  private static JsonObject json(String name, boolean nullable, JsonObject type) {
    return new JsonObject().put("name", name).put("nullable", nullable).put("type", type);
  }

  private static JsonObject type(String name) {
    return new JsonObject().put("type", name);
  }

  @Test
  void theSchemaIsReportedAsArrowJson() {
    Schema schema = new Schema(List.of(
        field("id", new ArrowType.Int(64, true), false),
        field("u8", new ArrowType.Int(8, false), true),
        new Field("name", new FieldType(true, ArrowType.Utf8.INSTANCE, null, Map.of("comment", "display name")),
            List.of()),
        field("big", ArrowType.LargeUtf8.INSTANCE, true),
        field("blob", ArrowType.Binary.INSTANCE, true),
        field("ok", ArrowType.Bool.INSTANCE, true),
        field("half", new ArrowType.FloatingPoint(FloatingPointPrecision.HALF), true),
        field("score", new ArrowType.FloatingPoint(FloatingPointPrecision.DOUBLE), true),
        field("day", new ArrowType.Date(DateUnit.DAY), true),
        field("at", new ArrowType.Timestamp(TimeUnit.MICROSECOND, "UTC"), true),
        field("price", new ArrowType.Decimal(10, 2, 128), true),
        field("digest", new ArrowType.FixedSizeBinary(16), true),
        field("vector", new ArrowType.FixedSizeList(4), true,
            field("item", new ArrowType.FloatingPoint(FloatingPointPrecision.SINGLE), true)),
        field("tags", ArrowType.List.INSTANCE, true, field("item", ArrowType.Utf8.INSTANCE, true)),
        field("point", ArrowType.Struct.INSTANCE, false,
            field("x", new ArrowType.Int(32, true), true), field("y", ArrowType.LargeBinary.INSTANCE, true)),
        field("events", ArrowType.LargeList.INSTANCE, true, field("item", ArrowType.Struct.INSTANCE, true,
            field("code", new ArrowType.Int(16, true), false))),
        field("attrs", new ArrowType.Map(false), true, field("entries", ArrowType.Struct.INSTANCE, false,
            field("key", ArrowType.Utf8.INSTANCE, false), field("value", new ArrowType.Int(32, true), true)))),
        Map.of("owner", "data-team"));
    Path location = warehouse.resolve("ns/rich.lance");
    try (BufferAllocator allocator = new RootAllocator();
        Dataset dataset = Dataset.create(allocator, location.toString(), schema, new WriteParams.Builder().build())) {
      assertThat(dataset.version()).isEqualTo(1);
    }
    post("/v1/namespace/ns/create", "{}");
    assertThat(post("/v1/table/ns$rich/register", new JsonObject().put("location", location.toString())).status())
        .isEqualTo(200);

    Reply reply = post("/v1/table/ns$rich/describe?load_detailed_metadata=true", "{}");
    assertThat(reply.status()).as(reply.body()).isEqualTo(200);
    JsonObject expected = new JsonObject()
        .put("fields", new JsonArray()
            .add(json("id", false, type("int64")))
            .add(json("u8", true, type("uint8")))
            .add(json("name", true, type("utf8")).put("metadata", new JsonObject().put("comment", "display name")))
            .add(json("big", true, type("large_utf8")))
            .add(json("blob", true, type("binary")))
            .add(json("ok", true, type("bool")))
            .add(json("half", true, type("float16")))
            .add(json("score", true, type("float64")))
            .add(json("day", true, type("date32")))
            .add(json("at", true, type("timestamp")))
            .add(json("price", true, type("decimal128").put("length", 10002L)))
            .add(json("digest", true, type("fixed_size_binary").put("length", 16L)))
            .add(json("vector", true, type("fixed_size_list")
                .put("fields", new JsonArray().add(json("item", true, type("float32")))).put("length", 4L)))
            .add(json("tags", true, type("list").put("fields", new JsonArray().add(json("item", true, type("utf8"))))))
            .add(json("point", false, type("struct").put("fields", new JsonArray()
                .add(json("x", true, type("int32"))).add(json("y", true, type("large_binary"))))))
            .add(json("events", true, type("large_list").put("fields", new JsonArray()
                .add(json("item", true, type("struct").put("fields", new JsonArray()
                    .add(json("code", false, type("int16")))))))))
            .add(json("attrs", true, type("map").put("fields", new JsonArray()
                .add(json("entries", false, type("struct").put("fields", new JsonArray()
                    .add(json("key", false, type("utf8"))).add(json("value", true, type("int32"))))))))))
        .put("metadata", new JsonObject().put("owner", "data-team"));
    JsonObject described = reply.json();
    assertThat(described.getJsonObject("schema")).isEqualTo(expected);
    assertThat(described.getLong("version")).isEqualTo(1L);
    assertThat(described.getString("table")).isEqualTo("rich");
    assertThat(described.getJsonArray("namespace")).isEqualTo(new JsonArray().add("ns"));
    assertThat(described.getBoolean("is_only_declared")).isFalse();
    assertThat(described.getJsonObject("stats")).isEqualTo(new JsonObject()
        .put("num_deleted_rows", 0L).put("num_fragments", 0L).put("num_rows", 0L));
    assertThat(described.getJsonObject("metadata")).isEqualTo(new JsonObject());
  }

  @Test
  void statsCountFragmentsRowsAndDeletionsOfTheDescribedVersion() {
    Path location = warehouse.resolve("ns/rows.lance");
    long rowsNow;
    int fragmentsNow;
    try (LanceTables lance = LanceTables.local(location)) {
      assertThat(lance.createWithLance(0, 10)).isEqualTo(1);
      assertThat(lance.appendWithLance(10, 5)).isEqualTo(2);
      try (Dataset dataset = lance.open()) {
        dataset.delete("id < 3 OR id = 12");
      }
      try (Dataset latest = lance.open()) {
        assertThat(latest.version()).isEqualTo(3);
        rowsNow = latest.countRows();
        fragmentsNow = latest.getFragments().size();
      }
    }
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$rows/register", new JsonObject().put("location", location.toString()));

    JsonObject latest = post("/v1/table/ns$rows/describe?load_detailed_metadata=true", "{}").json();
    assertThat(latest.getLong("version")).isEqualTo(3L);
    JsonObject stats = latest.getJsonObject("stats");
    assertThat(stats.getLong("num_rows")).isEqualTo(rowsNow).isEqualTo(11L);
    assertThat(stats.getLong("num_fragments")).isEqualTo(fragmentsNow).isEqualTo(2L);
    assertThat(stats.getLong("num_deleted_rows")).isEqualTo(4L);
    assertThat(latest.getJsonObject("schema").getJsonArray("fields")).isEqualTo(new JsonArray()
        .add(json("id", false, type("int64"))).add(json("value", true, type("utf8"))));

    JsonObject before = post("/v1/table/ns$rows/describe?load_detailed_metadata=true", "{\"version\":2}").json();
    assertThat(before.getLong("version")).isEqualTo(2L);
    assertThat(before.getJsonObject("stats")).isEqualTo(new JsonObject()
        .put("num_deleted_rows", 0L).put("num_fragments", 2L).put("num_rows", 15L));
  }

  @Test
  void withoutTheFlagNoManifestIsRead() {
    Path location = warehouse.resolve("ns/cheap.lance");
    try (LanceTables lance = LanceTables.local(location)) {
      lance.createWithLance(0, 3);
    }
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$cheap/register", new JsonObject().put("location", location.toString()));
    store.clearOperations();

    JsonObject plain = post("/v1/table/ns$cheap/describe?check_declared=true", "{}").json();
    assertThat(plain.getLong("version")).isEqualTo(1L);
    assertThat(plain.containsKey("schema")).isFalse();
    assertThat(plain.containsKey("stats")).isFalse();
    assertThat(store.operations()).noneMatch(op -> op.startsWith("get") && op.endsWith(".manifest"));

    post("/v1/table/ns$cheap/describe?load_detailed_metadata=true", "{}");
    assertThat(store.operations()).anyMatch(op -> op.startsWith("get") && op.endsWith(".manifest"));
  }

  @Test
  void aDeclaredTableHasNoDetailsYet() {
    post("/v1/namespace/ns/create", "{}");
    post("/v1/table/ns$t/declare", "{}");
    JsonObject described = post("/v1/table/ns$t/describe?load_detailed_metadata=true", "{}").json();
    assertThat(described.getBoolean("is_only_declared")).isTrue();
    assertThat(described.containsKey("schema")).isFalse();
    assertThat(described.containsKey("version")).isFalse();
    post("/v1/table/ns$t/describe?load_detailed_metadata=true", "{\"version\":1}").error(404, 11);
  }
}
