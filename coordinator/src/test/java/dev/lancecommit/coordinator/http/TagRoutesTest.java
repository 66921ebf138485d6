package dev.lancecommit.coordinator.http;

import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.stream.LongStream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.Dataset;
import org.lance.Tag;

/**
 * The tag operations over HTTP, written where and as Lance writes tags ({@code _refs/tags/{tag}.json}): stock Lance
 * (lance-core 7.0.0) lists and checks out the tags the coordinator makes, and the coordinator reads the tags Lance
 * makes.
 */
class TagRoutesTest extends LaneServerFixture {
  private static final ObjectMapper JSON = new ObjectMapper();
  private Path root;
  private LanceTables lance;

  @BeforeEach
  void tableWithThreeVersions() {
    post("/v1/namespace/ns/create", "{}").ok();
    root = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(root);
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
  void stockLanceListsAndChecksOutTheTagsTheCoordinatorMakes() throws Exception {
    assertThat(post("/v1/table/ns$t/tags/create", tag("release", 1)).ok()).isEqualTo(new JsonObject());
    try (Dataset ds = lance.open()) {
      List<Tag> tags = ds.tags().list();
      assertThat(tags).extracting(Tag::getName).containsExactly("release");
      assertThat(tags.get(0).getVersion()).isEqualTo(1);
      assertThat(tags.get(0).getBranch()).isEmpty();
      assertThat(tags.get(0).getManifestSize()).isEqualTo(manifestSize(1));
      assertThat(tags.get(0).getCreatedAt()).isPresent();
      try (Dataset tagged = ds.checkoutTag("release")) {
        assertThat(tagged.version()).isEqualTo(1);
        assertThat(LanceTables.readColumn(tagged, "id")).hasSize(5);
      }
    }

    // moved: Lance follows, and the creation time stays
    String created = readRef("release").get("createdAt").asText();
    post("/v1/table/ns$t/tags/update", tag("release", 2)).ok();
    assertThat(readRef("release").get("createdAt").asText()).isEqualTo(created);
    assertThat(post("/v1/table/ns$t/tags/version", new JsonObject().put("tag", "release")).ok())
        .isEqualTo(new JsonObject().put("version", 2L));
    try (Dataset ds = lance.open()) {
      assertThat(ds.tags().getVersion("release")).isEqualTo(2);
      try (Dataset tagged = ds.checkoutTag("release")) {
        assertThat(LanceTables.readColumn(tagged, "id")).hasSize(10);
      }
    }

    // deleted: Lance no longer sees it
    post("/v1/table/ns$t/tags/delete", new JsonObject().put("tag", "release")).ok();
    try (Dataset ds = lance.open()) {
      assertThat(ds.tags().list()).isEmpty();
    }
    assertThat(Files.exists(root.resolve("_refs/tags/release.json"))).isFalse();
  }

  @Test
  void theFileHasLancesFieldsAndTheCoordinatorReadsTagsLanceMakes() throws Exception {
    post("/v1/table/ns$t/tags/create", tag("ours", 2)).ok();
    try (Dataset ds = lance.open()) {
      ds.tags().create("theirs", 3);
    }
    assertThat(fieldNames(readRef("ours"))).isEqualTo(fieldNames(readRef("theirs")))
        .containsExactlyInAnyOrder("branch", "version", "createdAt", "updatedAt", "manifestSize", "metadata");
    assertThat(readRef("ours").get("branch").isNull()).isTrue();

    JsonObject tags = post("/v1/table/ns$t/tags/list", "").ok().getJsonObject("tags");
    assertThat(tags).isEqualTo(new JsonObject()
        .put("ours", new JsonObject().put("version", 2L).put("manifestSize", manifestSize(2)))
        .put("theirs", new JsonObject().put("version", 3L).put("manifestSize", manifestSize(3))));
    assertThat(post("/v1/table/ns$t/tags/version", new JsonObject().put("tag", "theirs")).ok().getLong("version"))
        .isEqualTo(3L);
    // a tag Lance made is moved and deleted like ours
    post("/v1/table/ns$t/tags/update", tag("theirs", 1)).ok();
    try (Dataset ds = lance.open()) {
      assertThat(ds.tags().getVersion("theirs")).isEqualTo(1);
    }
  }

  @Test
  void listsPageByName() {
    for (String name : List.of("c", "a", "d", "b", "e")) {
      post("/v1/table/ns$t/tags/create", tag(name, 1)).ok();
    }
    List<List<String>> pages = new ArrayList<>();
    String token = null;
    do {
      JsonObject page = post("/v1/table/ns$t/tags/list?limit=2" + (token == null ? "" : "&page_token=" + token), "")
          .ok();
      pages.add(new ArrayList<>(page.getJsonObject("tags").fieldNames()));
      token = page.getString("page_token");
    } while (token != null);
    assertThat(pages).containsExactly(List.of("a", "b"), List.of("c", "d"), List.of("e"));
    post("/v1/table/ns$t/tags/list?page_token=bogus", "").error(400, 13);
  }

  @Test
  void refusalsFollowTheSpecAndChangeNothing() {
    post("/v1/table/ns$t/tags/create", tag("release", 1)).ok();
    post("/v1/table/ns$t/tags/create", tag("release", 2)).error(409, 9);
    post("/v1/table/ns$t/tags/create", tag("other", 9)).error(404, 11);
    post("/v1/table/ns$t/tags/create", tag("bad/name", 1)).error(400, 13);
    post("/v1/table/ns$t/tags/create", tag(".hidden", 1)).error(400, 13);
    post("/v1/table/ns$t/tags/create", new JsonObject().put("tag", "x")).error(400, 13);
    post("/v1/table/ns$t/tags/create", tag("x", 1).put("branch", "nope")).error(404, 22);
    post("/v1/table/ns$t/tags/update", tag("ghost", 1)).error(404, 8);
    post("/v1/table/ns$t/tags/update", tag("release", 9)).error(404, 11);
    post("/v1/table/ns$t/tags/delete", new JsonObject().put("tag", "ghost")).error(404, 8);
    post("/v1/table/ns$t/tags/version", new JsonObject().put("tag", "ghost")).error(404, 8);
    post("/v1/table/ns$ghost/tags/list", "").error(404, 4);
    post("/v1/table/ns$ghost/tags/create", tag("x", 1)).error(404, 4);
    assertThat(post("/v1/table/ns$t/tags/list", "").ok().getJsonObject("tags").fieldNames())
        .containsExactly("release");
    assertThat(post("/v1/table/ns$t/tags/version", new JsonObject().put("tag", "release")).ok().getLong("version"))
        .isEqualTo(1L);
  }

  private static JsonObject tag(String name, long version) {
    return new JsonObject().put("tag", name).put("version", version);
  }

  private JsonNode readRef(String tag) throws Exception {
    return JSON.readTree(root.resolve("_refs/tags/" + tag + ".json").toFile());
  }

  private static Set<String> fieldNames(JsonNode node) {
    Set<String> names = new TreeSet<>();
    for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
      names.add(it.next());
    }
    return names;
  }

  private long manifestSize(long version) {
    return post("/v1/table/ns$t/version/describe", new JsonObject().put("version", version)).ok()
        .getJsonObject("version").getLong("manifest_size");
  }

  private void commit(Transaction txn) {
    assertThat(postBytes("/v1/table/ns$t/commit", txn.toByteArray()).status()).isEqualTo(200);
  }

  static List<Long> range(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
