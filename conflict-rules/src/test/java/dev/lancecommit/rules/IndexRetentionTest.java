package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.IndexMetadata;
import java.util.List;
import java.util.Set;
import java.util.function.Supplier;
import org.junit.jupiter.api.Test;

class IndexRetentionTest {
  private static final Set<Integer> FIELDS = Set.of(0, 1, 2, 3);

  @Test
  void indicesOnDroppedFieldsGoButSystemIndicesStay() {
    IndexMetadata onDropped = scalarIndex(1, "gone", 1, 9, 0);
    IndexMetadata fri = scalarIndex(2, IndexRetention.FRAG_REUSE_INDEX_NAME, 1, 9).toBuilder()
        .clearFragmentBitmap().build();
    IndexMetadata memWal = scalarIndex(3, IndexRetention.MEM_WAL_INDEX_NAME, 1, 9).toBuilder()
        .clearFields().clearFragmentBitmap().build();
    assertThat(IndexRetention.retainRelevant(List.of(onDropped, fri, memWal), FIELDS, () -> List.of(0L)))
        .containsExactly(fri, memWal);
  }

  @Test
  void amongSameNameSegmentsTheOnesCoveringLiveFragmentsStay() {
    IndexMetadata dead = scalarIndex(1, "idx", 1, 0, 7);
    IndexMetadata live = scalarIndex(2, "idx", 2, 0, 0, 7);
    IndexMetadata unknown = scalarIndex(3, "idx", 3, 0).toBuilder().clearFragmentBitmap().build();
    assertThat(IndexRetention.retainRelevant(List.of(dead, live, unknown), FIELDS, () -> List.of(0L, 1L)))
        .containsExactly(live);
  }

  @Test
  void whenNoSegmentCoversAnythingOnlyTheOldestScalarOneStays() {
    IndexMetadata newer = scalarIndex(1, "idx", 5, 0, 7);
    IndexMetadata oldest = scalarIndex(2, "idx", 2, 0, 8);
    assertThat(IndexRetention.retainRelevant(List.of(newer, oldest), FIELDS, () -> List.of(0L)))
        .containsExactly(oldest);
    IndexMetadata vecNewer = vectorIndex(3, "vec", 5, 2, 7);
    IndexMetadata vecOldest = vectorIndex(4, "vec", 2, 2, 8);
    assertThat(IndexRetention.retainRelevant(List.of(vecNewer, vecOldest), FIELDS, () -> List.of(0L))).isEmpty();
  }

  @Test
  void aLoneSegmentStaysUnlessItIsAnEmptyVectorIndex() {
    IndexMetadata scalarNoBitmap = scalarIndex(1, "s", 1, 0).toBuilder().clearFragmentBitmap().build();
    IndexMetadata vectorEmpty = vectorIndex(2, "v", 1, 2, 9);
    IndexMetadata vectorLive = vectorIndex(3, "w", 1, 2, 0);
    assertThat(IndexRetention.retainRelevant(List.of(scalarNoBitmap, vectorEmpty, vectorLive), FIELDS,
        () -> List.of(0L))).containsExactly(scalarNoBitmap, vectorLive);
  }

  @Test
  void theTablesFragmentIdsAreNotAskedForWhenNoIndexSegmentIsCheckedAgainstThem() {
    Supplier<List<Long>> refused = () -> {
      throw new AssertionError("the fragment ids were asked for");
    };
    IndexMetadata fri = scalarIndex(2, IndexRetention.FRAG_REUSE_INDEX_NAME, 1, 9).toBuilder()
        .clearFragmentBitmap().build();
    IndexMetadata onDropped = scalarIndex(1, "gone", 1, 9, 0);

    assertThat(IndexRetention.retainRelevant(List.of(), FIELDS, refused)).isEmpty();
    assertThat(IndexRetention.retainRelevant(List.of(fri, onDropped), FIELDS, refused)).containsExactly(fri);
  }

  @Test
  void pruningRemovesUpdatedFragmentsFromIndicesOnModifiedFieldsOnly() {
    IndexMetadata onName = scalarIndex(1, "name_idx", 1, 1, 0, 1, 2);
    IndexMetadata onId = scalarIndex(2, "id_idx", 1, 0, 0, 1, 2);
    List<IndexMetadata> pruned = IndexRetention.pruneUpdatedFields(List.of(onName, onId), List.of(1L, 2L), List.of(1));
    assertThat(bitmapIds(pruned.get(0))).containsExactly(0L);
    assertThat(pruned.get(1)).isEqualTo(onId);
  }

  @Test
  void movedRowsJoinIndicesThatCoveredEverySourceAndNoChangedField() {
    IndexMetadata coversSources = scalarIndex(1, "id_idx", 1, 0, 0, 1);
    IndexMetadata missesOneSource = scalarIndex(2, "id2", 1, 0, 0);
    IndexMetadata onChangedField = scalarIndex(3, "name_idx", 1, 1, 0, 1);
    List<IndexMetadata> result = IndexRetention.registerMovedRows(
        List.of(coversSources, missesOneSource, onChangedField), List.of(5L), List.of(0L, 1L), List.of(1));
    assertThat(bitmapIds(result.get(0))).containsExactly(0L, 1L, 5L);
    assertThat(result.get(1)).isEqualTo(missesOneSource);
    assertThat(result.get(2)).isEqualTo(onChangedField);
  }

  @Test
  void anEmptyButPresentBitmapIsNotTheSameAsAnUnknownOne() {
    assertThat(FragmentBitmaps.decode(FragmentBitmaps.encode(new org.roaringbitmap.RoaringBitmap()))).isNotNull();
    assertThat(FragmentBitmaps.decode(com.google.protobuf.ByteString.EMPTY)).isNull();
  }
}
