package dev.lancecommit.rules.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** Which transactions may share a version, and the one transaction that records them. */
class GroupCommitTest {
  private static final List<Field> SCHEMA = List.of(Field.newBuilder().setId(0).setParentId(-1).setName("id")
      .setLogicalType("int64").build());

  private static DataFragment fragment(long id, long rows, String path) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(rows).addFiles(DataFile.newBuilder().setPath(path)
        .addFields(0).addColumnIndices(0).setFileMajorVersion(2).setFileMinorVersion(1).setFileSizeBytes(100)).build();
  }

  private static CommitContext ctx(long version) {
    return new CommitContext(version, Instant.parse("2026-12-01T00:00:00Z"), (version - 1) + "-x.txn",
        WriterVersions.coordinator(), false, "2.1");
  }

  private static TableState table() {
    Transaction create = Transaction.newBuilder().setUuid(UUID.randomUUID().toString())
        .setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(SCHEMA).addFragments(fragment(0, 10, "a")))
        .build();
    return ManifestBuilder.build(null, create, ctx(1));
  }

  private static Transaction append(String... paths) {
    Transaction.Append.Builder append = Transaction.Append.newBuilder();
    for (String path : paths) {
      append.addFragments(fragment(0, 5, path));
    }
    return Transaction.newBuilder().setUuid(UUID.randomUUID().toString()).setReadVersion(1).setAppend(append).build();
  }

  private static Transaction update(List<Integer> fieldsModified) {
    return Transaction.newBuilder().setUuid(UUID.randomUUID().toString()).setReadVersion(1)
        .setUpdate(Transaction.Update.newBuilder().addAllFieldsModified(fieldsModified)
            .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)).build();
  }

  @Test
  void appendsDeletesAndRewriteRowsUpdatesMayBeGroupedEverythingElseCommitsAlone() {
    TableState base = table();
    assertThat(GroupCommit.whyAlone(append("b"), base)).isEmpty();
    assertThat(GroupCommit.whyAlone(update(List.of(0)), base)).isEmpty();
    assertThat(GroupCommit.whyAlone(Transaction.newBuilder().setUuid("u").setReadVersion(1)
        .setDelete(Transaction.Delete.getDefaultInstance()).build(), base)).isEmpty();

    assertThat(GroupCommit.whyAlone(append("b").toBuilder().setTag("v1").build(), base)).contains("it carries a tag");
    assertThat(GroupCommit.whyAlone(append("b"), null)).contains("the table has no version yet");
    Transaction namedIds = append("b").toBuilder().setAppend(Transaction.Append.newBuilder()
        .addFragments(fragment(7, 5, "b"))).build();
    assertThat(GroupCommit.whyAlone(namedIds, base)).contains("it names its fragment ids");
    Transaction columns = update(List.of(0)).toBuilder().setUpdate(update(List.of(0)).getUpdate().toBuilder()
        .setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS)).build();
    assertThat(GroupCommit.whyAlone(columns, base)).contains("it rewrites columns in place");
    Transaction filtered = update(List.of(0)).toBuilder().setUpdate(update(List.of(0)).getUpdate().toBuilder()
        .setInsertedRows(com.google.protobuf.ByteString.copyFromUtf8("filter"))).build();
    assertThat(GroupCommit.whyAlone(filtered, base)).contains("it carries a key-existence filter");
    Transaction overwrite = Transaction.newBuilder().setUuid("u").setReadVersion(1)
        .setOverwrite(Transaction.Overwrite.getDefaultInstance()).build();
    assertThat(GroupCommit.whyAlone(overwrite, base)).contains("Overwrite is not grouped");

    TableState stable = new TableState(base.manifest().toBuilder()
        .setReaderFeatureFlags(FeatureFlags.STABLE_ROW_IDS).setWriterFeatureFlags(FeatureFlags.STABLE_ROW_IDS)
        .build(), base.indices());
    assertThat(GroupCommit.whyAlone(update(List.of(0)), stable)).contains("the table uses stable row ids");
    assertThat(GroupCommit.whyAlone(append("b"), stable)).as("appends assign row ids in order").isEmpty();
  }

  @Test
  void membersOfAGroupShareTheOperationAndAnUpdateGroupItsFields() {
    TableState base = table();
    assertThat(GroupCommit.whyNotWith(append("c"), append("b"), base)).isEmpty();
    assertThat(GroupCommit.whyNotWith(update(List.of(0)), append("b"), base))
        .contains("the group is of Append, not Update");
    assertThat(GroupCommit.whyNotWith(update(List.of(0, 1)), update(List.of(1, 0)), base)).isEmpty();
    assertThat(GroupCommit.whyNotWith(update(List.of(0)), update(List.of(0, 1)), base))
        .contains("it modifies other fields than the group");
  }

  @Test
  void mergedAppendsAreLanceBatchAppendsNamingTheirMembers() {
    Transaction a = append("b", "c").toBuilder().putTransactionProperties("__lance_commit_message", "load")
        .putTransactionProperties("job", "1").build();
    Transaction b = append("d").toBuilder().putTransactionProperties("__lance_commit_message", "load")
        .putTransactionProperties("job", "2").build();
    Transaction merged = GroupCommit.merge("99999999-9999-4999-8999-999999999999", 3, List.of(a, b),
        Map.of("lance-commit-coordinator.actor", "alice"));

    assertThat(merged.getUuid()).isEqualTo("99999999-9999-4999-8999-999999999999");
    assertThat(merged.getReadVersion()).isEqualTo(3);
    assertThat(merged.getAppend().getFragmentsList()).extracting(f -> f.getFiles(0).getPath())
        .containsExactly("b", "c", "d");
    assertThat(GroupMembers.of(merged)).containsExactly(a.getUuid(), b.getUuid());
    assertThat(merged.getTransactionPropertiesMap())
        .containsEntry("__lance_commit_message", "load")
        .containsEntry("lance-commit-coordinator.actor", "alice")
        .doesNotContainKey("job");

    // Built on one version it adds exactly the fragments the members add one by one, numbered in member order.
    TableState base = table();
    TableState grouped = ManifestBuilder.build(base, merged, ctx(2));
    TableState oneByOne = ManifestBuilder.build(ManifestBuilder.build(base, a, ctx(2)), b, ctx(3));
    assertThat(grouped.manifest().getFragmentsList()).isEqualTo(oneByOne.manifest().getFragmentsList());
    assertThat(grouped.manifest().getMaxFragmentId()).isEqualTo(oneByOne.manifest().getMaxFragmentId());
  }

  @Test
  void aGroupNeedsTwoDistinctMembersOfOneOperation() {
    Transaction a = append("b");
    assertThatThrownBy(() -> GroupCommit.merge(UUID.randomUUID().toString(), 1, List.of(a), Map.of()))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> GroupCommit.merge(UUID.randomUUID().toString(), 1, List.of(a, a), Map.of()))
        .hasMessageContaining("twice");
    assertThatThrownBy(() -> GroupCommit.merge(UUID.randomUUID().toString(), 1, List.of(a, update(List.of(0))),
        Map.of())).hasMessageContaining("cannot hold");
  }

  @Test
  void theManifestOfAGroupStaysAValidManifest() {
    Manifest manifest = ManifestBuilder.build(table(), GroupCommit.merge(UUID.randomUUID().toString(), 1,
        List.of(append("b"), append("c")), Map.of()), ctx(2)).manifest();
    assertThat(manifest.getFragmentsList()).extracting(DataFragment::getId).containsExactly(0L, 1L, 2L);
    assertThat(manifest.getVersion()).isEqualTo(2);
  }
}
