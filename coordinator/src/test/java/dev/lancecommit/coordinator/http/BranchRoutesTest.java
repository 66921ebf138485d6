package dev.lancecommit.coordinator.http;

import static dev.lancecommit.coordinator.http.TagRoutesTest.range;
import static org.assertj.core.api.Assertions.assertThat;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.lancecommit.coordinator.commit.CommitEventSink;
import dev.lancecommit.events.CommitEvent;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.testing.lance.LanceTables;
import dev.lancecommit.client.lance.TransactionFactory;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.lance.Branch;
import org.lance.Dataset;
import org.lance.Ref;

/**
 * The branch operations over HTTP, and commits on a branch: branches are made and stored as Lance makes them
 * ({@code _refs/branches/}, {@code tree/{branch}/}), so stock Lance (lance-core 7.0.0) lists them and checks them out;
 * commits on a branch go through the branch's own lane, never move main, and their events name the branch.
 */
class BranchRoutesTest extends LaneServerFixture {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final List<CommitEvent> events = new CopyOnWriteArrayList<>();
  private Path root;
  private LanceTables lance;

  @Override
  CommitEventSink events() {
    return events::add;
  }

  @BeforeEach
  void tableWithThreeVersions() {
    post("/v1/namespace/ns/create", "{}").ok();
    root = Path.of(post("/v1/table/ns$t/declare", "{}").ok().getString("location"));
    lance = LanceTables.local(root);
    commit("", TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(0, 5))));
    commit("", TransactionFactory.append(1, LanceProtos.fragments(lance.writeRows(5, 5))));
    commit("", TransactionFactory.append(2, LanceProtos.fragments(lance.writeRows(10, 5))));
  }

  @AfterEach
  void closeLance() {
    lance.close();
  }

  @Test
  void aBranchIsMadeAsLanceMakesItAndCommitsOnItNeverMoveMain() throws Exception {
    JsonObject created = post("/v1/table/ns$t/branches/create",
        new JsonObject().put("name", "dev").put("from_version", 2)).ok();
    assertThat(created.getString("transaction_id")).isNotBlank();

    // the ref file has Lance's fields; the branch dataset starts at the parent's version number
    JsonNode ref = JSON.readTree(root.resolve("_refs/branches/dev.json").toFile());
    assertThat(ref.get("parentBranch").isNull()).isTrue();
    assertThat(ref.get("parentVersion").asLong()).isEqualTo(2);
    assertThat(ref.get("manifestSize").asLong()).isEqualTo(manifestSize("", 2));
    assertThat(ref.at("/identifier/version_mapping/0/0").asLong()).isEqualTo(2);
    assertThat(versions("dev")).containsExactly(2L);

    // two commits on the branch, one on main in between: each line numbers its own versions
    LanceTables onBranch = LanceTables.local(root.resolve("tree/dev"));
    try (onBranch) {
      assertThat(commit("dev", TransactionFactory.append(2, LanceProtos.fragments(onBranch.writeRows(100, 3))))
          .getLong("version")).isEqualTo(3L);
      assertThat(commit("", TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(15, 5))))
          .getLong("version")).isEqualTo(4L);
      JsonObject second = commitJson("dev",
          TransactionFactory.append(3, LanceProtos.fragments(onBranch.writeRows(103, 2))));
      assertThat(second.getLong("version")).isEqualTo(4L);
      assertThat(second.getString("manifest_path")).contains("/tree/dev/_versions/");
    }
    assertThat(versions("dev")).containsExactly(2L, 3L, 4L);
    assertThat(versions("")).containsExactly(1L, 2L, 3L, 4L);

    // stock Lance lists the branch and reads both lines
    try (Dataset ds = lance.open()) {
      assertThat(ds.version()).isEqualTo(4);
      assertThat(LanceTables.readColumn(ds, "id")).hasSize(20);
      List<Branch> branches = ds.branches().list();
      assertThat(branches).extracting(Branch::getName).containsExactly("dev");
      assertThat(branches.get(0).getParentVersion()).isEqualTo(2);
      assertThat(branches.get(0).getParentBranch()).isEmpty();
      try (Dataset dev = ds.checkout(Ref.ofBranch("dev"))) {
        assertThat(dev.version()).isEqualTo(4);
        assertThat(LanceTables.readColumn(dev, "id").stream().map(v -> ((Number) v).longValue()))
            .containsExactlyInAnyOrderElementsOf(Stream.concat(range(0, 10).stream(), range(100, 105).stream())
                .toList());
      }
      try (Dataset devAt3 = ds.checkout(Ref.ofBranch("dev", 3))) {
        assertThat(LanceTables.readColumn(devAt3, "id")).hasSize(13);
      }
    }

    // every version has one event; the branch's name the branch and count on the branch
    assertThat(events).extracting(CommitEvent::version, CommitEvent::branch).containsExactly(
        org.assertj.core.groups.Tuple.tuple(1L, null), org.assertj.core.groups.Tuple.tuple(2L, null),
        org.assertj.core.groups.Tuple.tuple(3L, null), org.assertj.core.groups.Tuple.tuple(2L, "dev"),
        org.assertj.core.groups.Tuple.tuple(3L, "dev"), org.assertj.core.groups.Tuple.tuple(4L, null),
        org.assertj.core.groups.Tuple.tuple(4L, "dev"));
    CommitEvent clone = events.get(3);
    assertThat(clone.operation()).isEqualTo("Clone");
    assertThat(clone.id()).isEqualTo(clone.tableUuid() + "@dev:2");
    assertThat(clone.location()).isEqualTo(root.toString());
    assertThat(clone.manifestPath()).contains("/tree/dev/_versions/");

    // listing
    JsonObject listed = post("/v1/table/ns$t/branches/list", "").ok().getJsonObject("branches");
    assertThat(listed.fieldNames()).containsExactly("dev");
    assertThat(listed.getJsonObject("dev").getLong("parentVersion")).isEqualTo(2L);
    assertThat(listed.getJsonObject("dev").containsKey("parentBranch")).isFalse();
    assertThat(listed.getJsonObject("dev").getLong("createAt")).isPositive();
    assertThat(post("/v1/table/ns$t/version/describe", new JsonObject().put("branch", "dev")).ok()
        .getJsonObject("version").getLong("version")).isEqualTo(4L);
  }

  @Test
  void branchesOfBranchesNestedNamesAndTheCoordinatorReadsBranchesLanceMakes() throws Exception {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev")).ok();
    assertThat(versions("dev")).containsExactly(3L); // the latest by default
    post("/v1/table/ns$t/branches/create",
        new JsonObject().put("name", "feature/x").put("from_branch", "dev").put("from_version", 3)).ok();
    assertThat(Files.exists(root.resolve("_refs/branches/feature%2Fx.json"))).isTrue();
    assertThat(Files.isDirectory(root.resolve("tree/feature/x/_versions"))).isTrue();
    try (Dataset ds = lance.open()) {
      ds.createBranch("lance-made", Ref.ofMain(1)).close();
      List<Branch> branches = ds.branches().list();
      assertThat(branches).extracting(Branch::getName)
          .containsExactlyInAnyOrder("dev", "feature/x", "lance-made");
      Branch nested = branches.stream().filter(b -> b.getName().equals("feature/x")).findFirst().orElseThrow();
      assertThat(nested.getParentBranch()).contains("dev");
      assertThat(nested.getBranchIdentifier()).hasSize(2); // dev's lineage plus its own step
      try (Dataset x = ds.checkout(Ref.ofBranch("feature/x"))) {
        assertThat(LanceTables.readColumn(x, "id")).hasSize(15);
      }
    }
    JsonObject listed = post("/v1/table/ns$t/branches/list", "").ok().getJsonObject("branches");
    assertThat(listed.fieldNames()).containsExactly("dev", "feature/x", "lance-made");
    assertThat(listed.getJsonObject("feature/x").getString("parentBranch")).isEqualTo("dev");

    // a branch Lance made takes commits through the coordinator
    try (LanceTables onBranch = LanceTables.local(root.resolve("tree/lance-made"))) {
      assertThat(commit("lance-made", TransactionFactory.append(1, LanceProtos.fragments(onBranch.writeRows(50, 1))))
          .getLong("version")).isEqualTo(2L);
    }

    // deleting: refused while a branch was made from it or a tag names it; then its files go
    post("/v1/table/ns$t/branches/delete", new JsonObject().put("name", "dev")).error(400, 13);
    post("/v1/table/ns$t/branches/delete", new JsonObject().put("name", "feature/x")).ok();
    try (Stream<Path> left = Files.walk(root.resolve("tree/feature"))) {
      assertThat(left.filter(Files::isRegularFile)).isEmpty();
    }
    post("/v1/table/ns$t/tags/create", new JsonObject().put("tag", "t").put("version", 3).put("branch", "dev")).ok();
    assertThat(post("/v1/table/ns$t/tags/version", new JsonObject().put("tag", "t")).ok().getString("branch"))
        .isEqualTo("dev");
    post("/v1/table/ns$t/branches/delete", new JsonObject().put("name", "dev")).error(400, 13);
    post("/v1/table/ns$t/tags/delete", new JsonObject().put("tag", "t")).ok();
    post("/v1/table/ns$t/branches/delete", new JsonObject().put("name", "dev")).ok();
    assertThat(Files.exists(root.resolve("_refs/branches/dev.json"))).isFalse();
    try (Stream<Path> left = Files.walk(root.resolve("tree/dev"))) {
      assertThat(left.filter(Files::isRegularFile)).isEmpty();
    }
    try (Dataset ds = lance.open()) {
      assertThat(ds.branches().list()).extracting(Branch::getName).containsExactly("lance-made");
      assertThat(ds.version()).isEqualTo(3); // main untouched throughout
    }

    // made again under the same name: a fresh dataset, whatever the old one held
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 1)).ok();
    assertThat(versions("dev")).containsExactly(1L);
    try (LanceTables onBranch = LanceTables.local(root.resolve("tree/dev"))) {
      assertThat(commit("dev", TransactionFactory.append(1, LanceProtos.fragments(onBranch.writeRows(70, 1))))
          .getLong("version")).isEqualTo(2L);
    }
  }

  @Test
  void refusalsFollowTheSpecAndChangeNothing() throws Exception {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 1)).ok();
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev")).error(409, 23);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "x").put("from_branch", "nope"))
        .error(404, 22);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "x").put("from_version", 9)).error(404, 11);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "main")).error(400, 13);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "a//b")).error(400, 13);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "x.lock")).error(400, 13);
    post("/v1/table/ns$t/branches/create", new JsonObject()).error(400, 13);
    post("/v1/table/ns$t/branches/delete", new JsonObject().put("name", "nope")).error(404, 22);
    post("/v1/table/ns$ghost/branches/list", "").error(404, 4);

    // commits and reads naming an unknown branch
    byte[] append = TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(20, 1))).toByteArray();
    postBytes("/v1/table/ns$t/commit?branch=nope", append).error(404, 22);
    // (a query string keeps the fixture from sending it as protobuf)
    post("/v1/table/ns$t/commit?delimiter=$", new JsonObject()
        .put("transaction", Base64.getEncoder().encodeToString(append)).put("branch", "nope")).error(404, 22);
    post("/v1/table/ns$t/version/list?branch=nope", "").error(404, 22);
    post("/v1/table/ns$t/version/describe", new JsonObject().put("branch", "nope")).error(404, 22);
    post("/v1/table/ns$t/stats", new JsonObject().put("branch", "nope")).error(404, 22);
    post("/v1/table/ns$t/restore", new JsonObject().put("version", 1).put("branch", "nope")).error(404, 22);
    post("/v1/table/ns$t/version/list?branch=bad..name", "").error(400, 13);

    // branch=main is the main branch
    assertThat(versions("main")).containsExactly(1L, 2L, 3L);
    assertThat(post("/v1/table/ns$t/branches/list", "").ok().getJsonObject("branches").fieldNames())
        .containsExactly("dev");
    assertThat(versions("dev")).containsExactly(1L);
  }

  @Test
  void aLeftoverDirectoryWithoutRefFileIsNoBranchAndIsClearedWhenTheBranchIsMade() throws Exception {
    // a creation that died after its Clone landed: versions under tree/dev, no ref file
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 3)).ok();
    Files.delete(root.resolve("_refs/branches/dev.json"));
    byte[] append = TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(20, 1))).toByteArray();
    postBytes("/v1/table/ns$t/commit?branch=dev", append).error(404, 22);
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 2)).ok();
    assertThat(versions("dev")).containsExactly(2L);
    try (Dataset ds = lance.open(); Dataset dev = ds.checkout(Ref.ofBranch("dev"))) {
      assertThat(LanceTables.readColumn(dev, "id")).hasSize(10);
    }
  }

  @Test
  void managedVersioningCreatesVersionsOnABranch() throws Exception {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev")).ok();
    Path branchRoot = root.resolve("tree/dev");
    Transaction txn;
    try (LanceTables onBranch = LanceTables.local(branchRoot)) {
      txn = TransactionFactory.append(3, LanceProtos.fragments(onBranch.writeRows(200, 4)));
    }
    // staged as Lance stages it: the branch's own _versions/{final name}-{uuid}
    ManifestFile base = ManifestFile.decode(Files.readAllBytes(
        branchRoot.resolve(ManifestNaming.path(ManifestNaming.Scheme.V2, 3))));
    Path staged = branchRoot.resolve("_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 4) + "-" + UUID.randomUUID());
    Files.write(staged, new ManifestFile(base.manifest().toBuilder().setVersion(4).build(), base.indices(),
        Optional.of(txn)).encode());
    JsonObject request = new JsonObject().put("version", 4).put("manifest_path", staged.toString().substring(1))
        .put("manifest_size", Files.size(staged)).put("naming_scheme", "V2").put("branch", "dev");

    JsonObject created = post("/v1/table/ns$t/version/create", request).ok();

    assertThat(created.getJsonObject("version").getLong("version")).isEqualTo(4L);
    assertThat(created.getJsonObject("version").getString("manifest_path")).contains("/tree/dev/_versions/");
    awaitRemoved(staged); // after the answer, off its path
    assertThat(versions("dev")).containsExactly(3L, 4L);
    assertThat(versions("")).containsExactly(1L, 2L, 3L);
    try (Dataset ds = lance.open(); Dataset dev = ds.checkout(Ref.ofBranch("dev"))) {
      assertThat(LanceTables.readColumn(dev, "id")).hasSize(19);
    }
    // staged on main's _versions/ but asking for the branch: not a staged manifest of the branch
    Path onMain = root.resolve("_versions")
        .resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, 5) + "-" + UUID.randomUUID());
    Files.write(onMain, new byte[] {1});
    post("/v1/table/ns$t/version/create", request.copy().put("version", 5)
        .put("manifest_path", onMain.toString().substring(1)).put("manifest_size", 1)).error(400, 13);
  }

  @Test
  void filesABranchCommitAddsAreCheckedUnderTheBranchAndVerifyTakesTheBranch() throws Exception {
    post("/v1/table/ns$t/branches/create", new JsonObject().put("name", "dev").put("from_version", 3)).ok();
    Path branchRoot = root.resolve("tree/dev");
    // written under main's root: the branch's version would name tree/dev/data/<file>, which is not there
    Transaction misplaced = TransactionFactory.append(3, LanceProtos.fragments(lance.writeRows(300, 2)));
    String detail = postBytes("/v1/table/ns$t/commit?branch=dev", misplaced.toByteArray()).error(400, 13)
        .getString("detail");
    String path = misplaced.getAppend().getFragments(0).getFiles(0).getPath();
    assertThat(detail).contains("tree/dev/data/" + path).contains("is not there");
    assertThat(versions("dev")).containsExactly(3L);

    try (LanceTables onBranch = LanceTables.local(branchRoot)) {
      Transaction append = TransactionFactory.append(3, LanceProtos.fragments(onBranch.writeRows(300, 2)));
      assertThat(commit("dev", append).getLong("version")).isEqualTo(4L);
      JsonObject healthy = post("/v1/table/ns$t/verify", new JsonObject().put("branch", "dev")).ok();
      assertThat(healthy.getBoolean("ok")).isTrue();
      assertThat(healthy.getLong("version")).isEqualTo(4L);
      // the three fragments it shares with main (through the clone's base path) and its own
      assertThat(healthy.getInteger("files_checked")).isEqualTo(4);

      // the branch's own data file is lost: the branch is damaged, main is not
      Files.delete(branchRoot.resolve("data").resolve(append.getAppend().getFragments(0).getFiles(0).getPath()));
      JsonObject damaged = post("/v1/table/ns$t/verify?branch=dev", "{}").ok();
      assertThat(damaged.getBoolean("ok")).isFalse();
      assertThat(damaged.getJsonArray("problems").getJsonObject(0).getString("file")).contains("tree/dev/data/");
      assertThat(post("/v1/table/ns$t/verify", "{}").ok().getBoolean("ok")).isTrue();
    }
    post("/v1/table/ns$t/verify", new JsonObject().put("branch", "nope")).error(404, 22);
  }

  private List<Long> versions(String branch) {
    JsonArray versions = post("/v1/table/ns$t/version/list" + (branch.isEmpty() ? "" : "?branch=" + branch), "")
        .ok().getJsonArray("versions");
    List<Long> out = new ArrayList<>();
    versions.forEach(v -> out.add(((JsonObject) v).getLong("version")));
    return out;
  }

  private long manifestSize(String branch, long version) {
    JsonObject body = new JsonObject().put("version", version);
    if (!branch.isEmpty()) {
      body.put("branch", branch);
    }
    return post("/v1/table/ns$t/version/describe", body).ok().getJsonObject("version").getLong("manifest_size");
  }

  private JsonObject commit(String branch, Transaction txn) {
    return commitJson(branch, txn);
  }

  private JsonObject commitJson(String branch, Transaction txn) {
    return postBytes("/v1/table/ns$t/commit" + (branch.isEmpty() ? "" : "?branch=" + branch), txn.toByteArray())
        .ok();
  }
}
