package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

class OverwriteBuildTest {

  @Test
  void creatingATableTakesSchemaConfigBasesAndFileVersionFromTheTransaction() {
    BasePath base = BasePath.newBuilder().setId(1).setPath("s3://other/root").setName("other")
        .setIsDatasetRoot(true).build();
    Transaction create = txn(0).setOverwrite(Transaction.Overwrite.newBuilder()
        .addAllSchema(SCHEMA)
        .putSchemaMetadata("owner", ByteString.copyFromUtf8("team-a"))
        .putConfigUpsertValues("lance.auto_cleanup.interval", "10")
        .addInitialBases(base)
        .addFragments(newFragment("a", 3))
        .addFragments(newFragment("b", 4))).setTag("v1").build();

    TableState created = ManifestBuilder.build(null, create, createCtx(false));
    Manifest m = created.manifest();

    assertThat(m.getVersion()).isEqualTo(1);
    assertThat(ids(created)).containsExactly(0L, 1L);
    assertThat(maxFragmentId(created)).isEqualTo(1);
    assertThat(m.getFieldsList()).isEqualTo(SCHEMA);
    assertThat(m.getSchemaMetadataMap()).containsEntry("owner", ByteString.copyFromUtf8("team-a"));
    assertThat(m.getConfigMap()).containsExactly(Map.entry("lance.auto_cleanup.interval", "10"));
    assertThat(m.getBasePathsList()).containsExactly(base);
    assertThat(m.getDataFormat().getFileFormat()).isEqualTo("lance");
    assertThat(m.getDataFormat().getVersion()).isEqualTo("2.1");
    assertThat(m.getWriterVersion()).isEqualTo(WRITER);
    assertThat(m.getTag()).isEqualTo("v1");
    assertThat(m.getTransactionFile()).isEqualTo("0-create.txn");
    assertThat(m.getReaderFeatureFlags()).isEqualTo(FeatureFlags.BASE_PATHS);
    assertThat(m.getWriterFeatureFlags()).isEqualTo(FeatureFlags.BASE_PATHS | FeatureFlags.TABLE_CONFIG);
    assertThat(m.hasBranch()).isFalse();
    assertThat(created.indices()).isEmpty();
  }

  @Test
  void anEmptyCreatedTableUsesTheDefaultStorageVersionAndHasNoHighWaterMark() {
    TableState created = ManifestBuilder.build(null, overwrite(0),
        new CommitContext(1, NOW, "0-x.txn", WRITER, false, "2.0"));
    assertThat(created.manifest().getDataFormat().getVersion()).isEqualTo("2.0");
    assertThat(created.manifest().hasMaxFragmentId()).isFalse();
    assertThat(created.manifest().getFragmentsCount()).isZero();
  }

  @Test
  void creatingWithStableRowIdsAssignsIdsAndVersionsEvenForAnEmptyTable() {
    TableState empty = ManifestBuilder.build(null, overwrite(0), createCtx(true));
    assertThat(empty.manifest().getReaderFeatureFlags()).isEqualTo(FeatureFlags.STABLE_ROW_IDS);
    assertThat(empty.manifest().getNextRowId()).isZero();

    TableState created = ManifestBuilder.build(null, overwrite(0, newFragment("a", 3), newFragment("b", 4)),
        createCtx(true));
    DataFragment second = created.manifest().getFragments(1);
    assertThat(RowIds.rowIds(RowIds.parse(second.getInlineRowIds()))).containsExactly(3, 4, 5, 6);
    assertThat(RowIds.parseVersions(second.getInlineCreatedAtVersions()))
        .isEqualTo(RowIds.freshVersions(4, 1));
    assertThat(created.manifest().getNextRowId()).isEqualTo(7);
  }

  @Test
  void duplicateInitialBaseIdsAreRefused() {
    BasePath base = BasePath.newBuilder().setId(3).setPath("s3://x").build();
    Transaction create = txn(0).setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(SCHEMA)
        .addInitialBases(base).addInitialBases(base.toBuilder().setPath("s3://y"))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(null, create, createCtx(false)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("Duplicate base path ID 3");
  }

  @Test
  void overwritingAnExistingTableClearsIndicesRestartsIdsAndKeepsTheHighWaterMark() {
    TableState current = withIndices(table(4, 6, fragment(5, 10), fragment(6, 10)),
        scalarIndex(1, "id_idx", 2, 0, 5, 6));
    current = new TableState(current.manifest().toBuilder().putConfig("keep", "1").putConfig("change", "old")
        .putTableMetadata("t", "m").build(), current.indices());
    List<Field> newSchema = List.of(field(0, -1, "only", "int32"));
    DataFragment onlyField0 = DataFragment.newBuilder().setPhysicalRows(2).addFiles(file("o.lance", 0)).build();
    Transaction overwrite = txn(4).setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(newSchema)
        .addFragments(onlyField0).addFragments(onlyField0.toBuilder().setFiles(0, file("p.lance", 0)))
        .putConfigUpsertValues("change", "new")).build();

    TableState next = ManifestBuilder.build(current, overwrite, ctx(5));

    assertThat(ids(next)).containsExactly(0L, 1L);
    assertThat(maxFragmentId(next)).isEqualTo(6);
    assertThat(next.indices()).isEmpty();
    assertThat(next.manifest().getFieldsList()).isEqualTo(newSchema);
    assertThat(next.manifest().getConfigMap()).containsOnly(Map.entry("keep", "1"), Map.entry("change", "new"));
    assertThat(next.manifest().getTableMetadataMap()).containsOnly(Map.entry("t", "m"));

    TableState appended = ManifestBuilder.build(next,
        append(5, DataFragment.newBuilder().setPhysicalRows(1).addFiles(file("q.lance", 0)).build()), ctx(6));
    assertThat(ids(appended)).containsExactly(0L, 1L, 7L);
  }

  @Test
  void initialBasesOnAnExistingTableAreRefused() {
    Transaction overwrite = txn(1).setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(SCHEMA)
        .addInitialBases(BasePath.newBuilder().setId(1).setPath("s3://x"))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(table(1, 0, fragment(0, 1)), overwrite, ctx(2)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("initial_bases");
  }

  @Test
  void anExistingTableKeepsStableRowIdsAndItsNextRowId() {
    TableState current = stableTable(2, 0, 50, withRowIds(fragment(0, 50), 0));
    TableState next = ManifestBuilder.build(current, overwrite(2, newFragment("a", 5)), ctx(3));
    assertThat(RowIds.rowIds(RowIds.parse(next.manifest().getFragments(0).getInlineRowIds())))
        .containsExactly(50, 51, 52, 53, 54);
    assertThat(next.manifest().getNextRowId()).isEqualTo(55);
    assertThat(RowIds.parseVersions(next.manifest().getFragments(0).getInlineLastUpdatedAtVersions()))
        .isEqualTo(RowIds.freshVersions(5, 3));
  }
}
