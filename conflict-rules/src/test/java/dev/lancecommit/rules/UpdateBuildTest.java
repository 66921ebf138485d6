package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.RowDatasetVersionSequence;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Test;

class UpdateBuildTest {

  private static Transaction.Update.Builder update() {
    return Transaction.Update.newBuilder();
  }

  private static Transaction txn(long readVersion, Transaction.Update.Builder update) {
    return Fixtures.txn(readVersion).setUpdate(update).build();
  }

  @Test
  void rewriteColumnsReplacesUpdatedFragmentsAndPrunesIndicesOnModifiedFields() {
    IndexMetadata onName = scalarIndex(1, "name_idx", 2, 1, 0, 1);
    IndexMetadata onId = scalarIndex(2, "id_idx", 2, 0, 0, 1);
    TableState current = withIndices(table(3, 1, fragment(0, 10), fragment(1, 10)), onName, onId);
    DataFragment rewritten = fragment(1, 10).toBuilder()
        .setFiles(0, file("f1-10.lance", 0, -2, 2, 3)).addFiles(file("name-v2.lance", 1)).build();

    TableState next = ManifestBuilder.build(current, txn(3, update().addUpdatedFragments(rewritten)
        .addFieldsModified(1).setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS)), ctx(4));

    assertThat(ids(next)).containsExactly(0L, 1L);
    assertThat(next.manifest().getFragments(1)).isEqualTo(rewritten);
    assertThat(bitmapIds(next.indices().get(0))).containsExactly(0L);
    assertThat(next.indices().get(1)).isEqualTo(onId);
  }

  @Test
  void rewriteRowsRemovesAndAddsFragmentsWithFreshIds() {
    TableState current = table(3, 4, fragment(0, 10), fragment(4, 10));
    TableState next = ManifestBuilder.build(current, txn(3, update()
        .addRemovedFragmentIds(0)
        .addUpdatedFragments(withDeletions(fragment(4, 10), 3, 2))
        .addNewFragments(newFragment("moved", 12))), ctx(4));
    assertThat(ids(next)).containsExactly(4L, 5L);
    assertThat(next.manifest().getFragments(0).hasDeletionFile()).isTrue();
    assertThat(maxFragmentId(next)).isEqualTo(5);
  }

  @Test
  void movedRowsKeepTheirIdsCreationVersionsAndIndexCoverage() {
    DataFragment source = fragment(0, 4).toBuilder()
        .setInlineRowIds(RowIds.encodeFresh(100, 4))
        .setInlineCreatedAtVersions(RowIds.encodeFreshVersions(4, 2))
        .setInlineLastUpdatedAtVersions(RowIds.encodeFreshVersions(4, 2)).build();
    DataFragment other = withRowIds(fragment(1, 3), 104);
    IndexMetadata idIdx = scalarIndex(1, "id_idx", 2, 0, 0, 1);
    IndexMetadata nameIdx = scalarIndex(2, "name_idx", 2, 1, 0, 1);
    IndexMetadata partial = scalarIndex(3, "vec_idx", 2, 2, 1);
    TableState current = withIndices(stableTable(5, 1, 107, source, other), idIdx, nameIdx, partial);

    // rows 100 and 101 of fragment 0 were updated: deleted there, rewritten (same row ids) into a new fragment
    DataFragment moved = newFragment("moved", 2).toBuilder().setInlineRowIds(RowIds.encodeFresh(100, 2)).build();
    // a merge-insert style fragment: one moved row (102) and two inserted rows without ids
    DataFragment mixed = newFragment("mixed", 3).toBuilder().setInlineRowIds(RowIds.encodeFresh(102, 1)).build();
    TableState next = ManifestBuilder.build(current, txn(5, update()
        .addUpdatedFragments(withDeletions(source, 5, 3))
        .addNewFragments(moved).addNewFragments(mixed)
        .addFieldsModified(1).addFieldsForPreservingFragBitmap(1)
        .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)), ctx(6));

    assertThat(ids(next)).containsExactly(0L, 1L, 2L, 3L);
    DataFragment movedOut = next.manifest().getFragments(2);
    DataFragment mixedOut = next.manifest().getFragments(3);
    assertThat(RowIds.rowIds(RowIds.parse(movedOut.getInlineRowIds()))).containsExactly(100, 101);
    assertThat(RowIds.rowIds(RowIds.parse(mixedOut.getInlineRowIds()))).containsExactly(102, 107, 108);
    assertThat(next.manifest().getNextRowId()).isEqualTo(109);

    assertThat(RowIds.parseVersions(movedOut.getInlineCreatedAtVersions())).isEqualTo(RowIds.freshVersions(2, 2));
    RowDatasetVersionSequence mixedCreated = RowIds.parseVersions(mixedOut.getInlineCreatedAtVersions());
    assertThat(mixedCreated.getRunsCount()).isEqualTo(2);
    assertThat(mixedCreated.getRuns(0).getVersion()).isEqualTo(2);
    assertThat(mixedCreated.getRuns(0).getSpan().getRange().getEnd()).isEqualTo(1);
    assertThat(mixedCreated.getRuns(1).getVersion()).isEqualTo(6);
    assertThat(RowIds.parseVersions(mixedOut.getInlineLastUpdatedAtVersions())).isEqualTo(RowIds.freshVersions(3, 6));

    // id_idx covered the source and indexes no changed field: it follows the purely moved rows only
    assertThat(bitmapIds(next.indices().get(0))).containsExactly(0L, 1L, 2L);
    // name_idx indexes the changed field: pruned, never extended
    assertThat(bitmapIds(next.indices().get(1))).containsExactly(1L);
    // vec_idx did not cover the source fragment: unchanged
    assertThat(bitmapIds(next.indices().get(2))).containsExactly(1L);
  }

  @Test
  void withoutStableRowIdsIndicesAreNotExtended() {
    IndexMetadata idIdx = scalarIndex(1, "id_idx", 2, 0, 0);
    TableState current = withIndices(table(3, 0, fragment(0, 10)), idIdx);
    TableState next = ManifestBuilder.build(current, txn(3, update().addRemovedFragmentIds(0)
        .addNewFragments(newFragment("moved", 10)).setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)), ctx(4));
    assertThat(ids(next)).containsExactly(1L);
    assertThat(next.indices()).containsExactly(idIdx);
  }
}
