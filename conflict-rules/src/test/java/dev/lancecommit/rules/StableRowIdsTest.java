package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.ExternalFile;
import java.util.List;
import org.junit.jupiter.api.Test;

class StableRowIdsTest {
  private static final TableState CURRENT = stableTable(4, 1, 30,
      withRowIds(fragment(0, 10), 0), withRowIds(fragment(1, 20), 10));

  private static long[] rowIds(DataFragment fragment) {
    return RowIds.rowIds(RowIds.parse(fragment.getInlineRowIds()));
  }

  @Test
  void appendedFragmentsGetConsecutiveRangesFromNextRowId() {
    TableState next = ManifestBuilder.build(CURRENT, append(4, newFragment("a", 3), newFragment("b", 2)), ctx(5));
    assertThat(rowIds(next.manifest().getFragments(2))).containsExactly(30, 31, 32);
    assertThat(rowIds(next.manifest().getFragments(3))).containsExactly(33, 34);
    assertThat(next.manifest().getNextRowId()).isEqualTo(35);
    assertThat(next.manifest().getReaderFeatureFlags() & FeatureFlags.STABLE_ROW_IDS).isNotZero();
    DataFragment a = next.manifest().getFragments(2);
    assertThat(RowIds.parseVersions(a.getInlineCreatedAtVersions())).isEqualTo(RowIds.freshVersions(3, 5));
    assertThat(RowIds.parseVersions(a.getInlineLastUpdatedAtVersions())).isEqualTo(RowIds.freshVersions(3, 5));
    // existing fragments are untouched
    assertThat(next.manifest().getFragments(0)).isEqualTo(CURRENT.manifest().getFragments(0));
  }

  @Test
  void aPartialSequenceIsFilledAndACompleteOneKept() {
    DataFragment partial = newFragment("p", 5).toBuilder().setInlineRowIds(RowIds.encodeFresh(3, 2)).build();
    DataFragment complete = newFragment("c", 2).toBuilder().setInlineRowIds(RowIds.encodeFresh(7, 2)).build();
    RowIdAssigner.Assignment assignment = RowIdAssigner.assign(List.of(partial, complete), 100);
    assertThat(rowIds(assignment.fragments().get(0))).containsExactly(3, 4, 100, 101, 102);
    assertThat(assignment.fragments().get(1)).isEqualTo(complete);
    assertThat(assignment.nextRowId()).isEqualTo(103);
  }

  @Test
  void moreIdsThanRowsUnknownRowCountsAndExternalSequencesAreRefused() {
    DataFragment excess = newFragment("e", 2).toBuilder().setInlineRowIds(RowIds.encodeFresh(0, 3)).build();
    assertThatThrownBy(() -> RowIdAssigner.assign(List.of(excess), 0))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("more row IDs (3) than physical rows (2)");
    DataFragment unknownRows = newFragment("u", 0);
    assertThatThrownBy(() -> ManifestBuilder.build(CURRENT, append(4, unknownRows), ctx(5)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("physical_rows");
    DataFragment external = newFragment("x", 2).toBuilder()
        .setExternalRowIds(ExternalFile.newBuilder().setPath("_rowids/x").setSize(10)).build();
    assertThatThrownBy(() -> RowIdAssigner.assign(List.of(external), 0))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("external");
  }

  @Test
  void aFragmentWithRowIdsCannotJoinATableWithoutThem() {
    TableState plain = table(1, 0, fragment(0, 1));
    DataFragment carrying = withRowIds(newFragment("a", 2), 0);
    assertThatThrownBy(() -> ManifestBuilder.build(plain, append(1, carrying), ctx(2)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("does not use stable row ids");
    assertThatThrownBy(() -> ManifestBuilder.build(null, overwrite(0, carrying), createCtx(false)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("does not use stable row ids");
  }

  @Test
  void operationsThatAddNothingLeaveNextRowIdAlone() {
    TableState next = ManifestBuilder.build(CURRENT, delete(4, List.of(), 0L), ctx(5));
    assertThat(next.manifest().getNextRowId()).isEqualTo(30);
  }
}
