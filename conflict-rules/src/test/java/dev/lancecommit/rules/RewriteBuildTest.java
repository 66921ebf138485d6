package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.Any;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.api.Test;

class RewriteBuildTest {
  private static final TableState FIVE = table(6, 4,
      fragment(0, 10), fragment(1, 10), fragment(2, 10), fragment(3, 10), fragment(4, 10));

  private static List<String> paths(TableState state) {
    return state.manifest().getFragmentsList().stream().map(f -> f.getFiles(0).getPath()).toList();
  }

  @Test
  void aContiguousGroupIsSplicedInPlaceAndNewFragmentsGetFreshIds() {
    Transaction compact = rewrite(6, group(
        List.of(fragment(1, 10), fragment(2, 10)), List.of(newFragment("c12", 20))));
    TableState next = ManifestBuilder.build(FIVE, compact, ctx(7));

    assertThat(ids(next)).containsExactly(0L, 3L, 4L, 5L);
    assertThat(maxFragmentId(next)).isEqualTo(5);
    assertThat(paths(next)).containsExactly("f0-10.lance", "f3-10.lance", "f4-10.lance", "c12.lance");
  }

  @Test
  void reservedIdsKeepTheirPositionWhenSplicedAfterSorting() {
    TableState reserved = ManifestBuilder.build(FIVE, reserve(6, 2), ctx(7));
    assertThat(maxFragmentId(reserved)).isEqualTo(6);
    assertThat(reserved.manifest().getFragmentsList()).isEqualTo(FIVE.manifest().getFragmentsList());

    // the compactor got ids 5 and 6 from the reservation
    Transaction compact = rewrite(7,
        group(List.of(fragment(1, 10), fragment(2, 10)), List.of(newFragment("c12", 20).toBuilder().setId(5).build())),
        group(List.of(fragment(3, 10), fragment(4, 10)), List.of(newFragment("c34", 20).toBuilder().setId(6).build())));
    TableState next = ManifestBuilder.build(reserved, compact, ctx(8));

    assertThat(ids(next)).containsExactly(0L, 5L, 6L);
    assertThat(paths(next)).containsExactly("f0-10.lance", "c12.lance", "c34.lance");
    assertThat(maxFragmentId(next)).isEqualTo(6);

    TableState appended = ManifestBuilder.build(next, append(8, newFragment("a", 1)), ctx(9));
    assertThat(ids(appended)).containsExactly(0L, 5L, 6L, 7L);
  }

  @Test
  void aNonContiguousGroupRemovesTheOldFragmentsAndAppendsTheNewOnes() {
    Transaction compact = rewrite(6, group(
        List.of(fragment(0, 10), fragment(3, 10)), List.of(newFragment("c03", 20))));
    TableState next = ManifestBuilder.build(FIVE, compact, ctx(7));
    assertThat(ids(next)).containsExactly(1L, 2L, 4L, 5L);
    assertThat(paths(next)).last().isEqualTo("c03.lance");
  }

  @Test
  void theDeprecatedSingleGroupFieldsAreReadWhenThereAreNoGroups() {
    Transaction compact = txn(6).setRewrite(Transaction.Rewrite.newBuilder()
        .addOldFragments(fragment(3, 10)).addOldFragments(fragment(4, 10))
        .addNewFragments(newFragment("c34", 20))).build();
    TableState next = ManifestBuilder.build(FIVE, compact, ctx(7));
    assertThat(ids(next)).containsExactly(0L, 1L, 2L, 5L);
  }

  @Test
  void aFragmentThatIsGoneCannotBeRewritten() {
    Transaction compact = rewrite(6, group(List.of(fragment(9, 10)), List.of(newFragment("x", 10))));
    assertThatThrownBy(() -> ManifestBuilder.build(FIVE, compact, ctx(7)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("fragment 9");
    Transaction partlyGone = rewrite(6, group(List.of(fragment(1, 10), fragment(9, 10)), List.of(newFragment("x", 20))));
    assertThatThrownBy(() -> ManifestBuilder.build(FIVE, partlyGone, ctx(7)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("fragment 9");
  }

  @Test
  void rewrittenIndicesGetRemappedBitmapsAndTheirNewUuid() {
    IndexMetadata idIdx = scalarIndex(1, "id_idx", 5, 0, 0, 1, 2).toBuilder()
        .addFiles(IndexFile.newBuilder().setPath("page_data.lance").setSizeBytes(10)).build();
    IndexMetadata untouched = scalarIndex(2, "name_idx", 5, 1, 0, 1, 2);
    TableState current = withIndices(FIVE, idIdx, untouched);
    Transaction compact = txn(6).setRewrite(Transaction.Rewrite.newBuilder()
        .addGroups(group(List.of(fragment(1, 10), fragment(2, 10)), List.of(newFragment("c12", 20))))
        .addRewrittenIndices(Transaction.RewrittenIndex.newBuilder().setOldId(uuid(1)).setNewId(uuid(11))
            .setNewIndexDetails(Any.newBuilder().setTypeUrl("/lance.table.BTreeIndexDetails"))
            .addNewIndexFiles(IndexFile.newBuilder().setPath("page_data.lance").setSizeBytes(12)))).build();

    TableState next = ManifestBuilder.build(current, compact, ctx(7));

    IndexMetadata remapped = next.indices().get(0);
    assertThat(remapped.getUuid()).isEqualTo(uuid(11));
    assertThat(bitmapIds(remapped)).containsExactly(0L, 5L);
    assertThat(remapped.getFiles(0).getSizeBytes()).isEqualTo(12);
    assertThat(next.indices().get(1)).isEqualTo(untouched);
  }

  @Test
  void rewrittenIndicesMustExistBeUniqueAndHaveABitmap() {
    IndexMetadata noBitmap = scalarIndex(1, "id_idx", 5, 0).toBuilder().clearFragmentBitmap().build();
    TableState current = withIndices(FIVE, noBitmap);
    Transaction.RewriteGroup g = group(List.of(fragment(1, 10)), List.of(newFragment("c1", 10)));
    Transaction.RewrittenIndex.Builder change = Transaction.RewrittenIndex.newBuilder().setNewId(uuid(11))
        .setNewIndexDetails(Any.getDefaultInstance());

    Transaction missing = txn(6).setRewrite(Transaction.Rewrite.newBuilder().addGroups(g)
        .addRewrittenIndices(change.clone().setOldId(uuid(9)))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, missing, ctx(7)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("does not exist");

    Transaction twice = txn(6).setRewrite(Transaction.Rewrite.newBuilder().addGroups(g)
        .addRewrittenIndices(change.clone().setOldId(uuid(1))).addRewrittenIndices(change.clone().setOldId(uuid(1))))
        .build();
    TableState withBitmap = withIndices(FIVE, scalarIndex(1, "id_idx", 5, 0, 1));
    assertThatThrownBy(() -> ManifestBuilder.build(withBitmap, twice, ctx(7)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("multiple tasks");

    Transaction once = txn(6).setRewrite(Transaction.Rewrite.newBuilder().addGroups(g)
        .addRewrittenIndices(change.clone().setOldId(uuid(1)))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, once, ctx(7)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("did not store fragment bitmap");
  }

  @Test
  void withStableRowIdsEveryBitmapFollowsTheGroupsAndUuidsStay() {
    DataFragment a = withRowIds(fragment(0, 10), 0);
    DataFragment b = withRowIds(fragment(1, 10), 10);
    DataFragment c = withRowIds(fragment(2, 10), 20);
    IndexMetadata covering = scalarIndex(1, "id_idx", 3, 0, 0, 1);
    IndexMetadata notCovering = scalarIndex(2, "name_idx", 3, 1, 2);
    TableState current = withIndices(stableTable(4, 2, 30, a, b, c), covering, notCovering);
    DataFragment merged = newFragment("c01", 20).toBuilder()
        .setInlineRowIds(dev.lancecommit.format.RowIds.encodeFresh(0, 20)).build();

    TableState next = ManifestBuilder.build(current, rewrite(4, group(List.of(a, b), List.of(merged))), ctx(5));

    assertThat(ids(next)).containsExactly(2L, 3L);
    assertThat(next.indices().get(0).getUuid()).isEqualTo(uuid(1));
    assertThat(bitmapIds(next.indices().get(0))).containsExactly(3L);
    assertThat(bitmapIds(next.indices().get(1))).containsExactly(2L);
    assertThat(next.manifest().getNextRowId()).isEqualTo(30);
  }

  @Test
  void aGroupSplittingIndexedFromUnindexedFragmentsIsRefused() {
    DataFragment a = withRowIds(fragment(0, 10), 0);
    DataFragment b = withRowIds(fragment(1, 10), 10);
    TableState current = withIndices(stableTable(4, 1, 20, a, b), scalarIndex(1, "id_idx", 3, 0, 0));
    DataFragment merged = newFragment("c01", 20).toBuilder()
        .setInlineRowIds(dev.lancecommit.format.RowIds.encodeFresh(0, 20)).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, rewrite(4, group(List.of(a, b), List.of(merged))), ctx(5)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("split of indexed and non-indexed data");
  }

  @Test
  void aGroupWithoutOldFragmentsIsRefused() {
    assertThatThrownBy(() -> ManifestBuilder.build(FIVE,
        rewrite(6, group(List.of(), List.of(newFragment("x", 1)))), ctx(7)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("no old fragments");
  }
}
