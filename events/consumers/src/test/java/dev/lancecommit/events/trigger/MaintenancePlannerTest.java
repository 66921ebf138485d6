package dev.lancecommit.events.trigger;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.RoaringBitmap;

class MaintenancePlannerTest {
  private static final TriggerPolicy POLICY = new TriggerPolicy(3, 100, 4, 500);

  private static DataFragment fragment(long id, long rows) {
    return DataFragment.newBuilder()
        .setId(id)
        .setPhysicalRows(rows)
        .addFiles(DataFile.newBuilder().setPath("f" + id + ".lance").addFields(0).addFields(1)
            .setFileMajorVersion(2).setFileMinorVersion(1))
        .build();
  }

  private static DataFragment withDeletions(DataFragment fragment, long deleted) {
    return fragment.toBuilder()
        .setDeletionFile(DeletionFile.newBuilder().setId(1).setReadVersion(2).setNumDeletedRows(deleted))
        .build();
  }

  private static IndexMetadata index(String name, String detailsType, Integer... fragmentIds) {
    IndexMetadata.Builder b = IndexMetadata.newBuilder()
        .setName(name)
        .addFields(0)
        .setDatasetVersion(1)
        .setIndexDetails(Any.newBuilder().setTypeUrl(detailsType));
    if (fragmentIds.length > 0) {
      RoaringBitmap bitmap = RoaringBitmap.bitmapOf(java.util.Arrays.stream(fragmentIds).mapToInt(i -> i).toArray());
      ByteArrayOutputStream out = new ByteArrayOutputStream();
      try (DataOutputStream data = new DataOutputStream(out)) {
        bitmap.serialize(data);
      } catch (IOException e) {
        throw new AssertionError(e);
      }
      b.setFragmentBitmap(ByteString.copyFrom(out.toByteArray()));
    }
    return b.build();
  }

  private static ManifestFile manifest(List<DataFragment> fragments, List<IndexMetadata> indices) {
    return manifest(fragments, indices, 0);
  }

  private static ManifestFile manifest(List<DataFragment> fragments, List<IndexMetadata> indices, long readerFlags) {
    Manifest manifest = Manifest.newBuilder()
        .setVersion(12)
        .addAllFragments(fragments)
        .setReaderFeatureFlags(readerFlags)
        .setWriterFeatureFlags(readerFlags)
        .build();
    return new ManifestFile(manifest, indices, Optional.empty());
  }

  @Test
  void compactsSmallFragmentsOnceEnoughPileUp() {
    List<DataFragment> fragments = List.of(fragment(0, 1000), fragment(1, 10), fragment(2, 99), fragment(3, 100),
        withDeletions(fragment(4, 150), 60), fragment(5, 5));
    MaintenancePlan plan = MaintenancePlanner.plan(manifest(fragments, List.of()), POLICY);
    assertThat(plan.version()).isEqualTo(12);
    CompactionPlan compaction = plan.compaction().orElseThrow();
    assertThat(compaction.fragmentIds()).containsExactly(1L, 2L, 4L, 5L);
    assertThat(compaction.liveRows()).isEqualTo(10 + 99 + 90 + 5);
    assertThat(compaction.fragments().get(2)).isEqualTo(fragments.get(4)); // exactly as the manifest lists it
    assertThat(plan.indexRefreshes()).isEmpty();
  }

  @Test
  void fewerSmallFragmentsThanTheThresholdIsNotDue() {
    List<DataFragment> fragments = List.of(fragment(0, 1000), fragment(1, 10), fragment(2, 20), fragment(3, 500));
    assertThat(MaintenancePlanner.plan(manifest(fragments, List.of()), POLICY).isEmpty()).isTrue();
  }

  @Test
  void oneCompactionTakesAtMostTheConfiguredNumberOfFragments() {
    List<DataFragment> fragments = new ArrayList<>();
    for (long id = 0; id < 10; id++) {
      fragments.add(fragment(id, 1));
    }
    CompactionPlan compaction = MaintenancePlanner.plan(manifest(fragments, List.of()), POLICY).compaction()
        .orElseThrow();
    assertThat(compaction.fragmentIds()).containsExactly(0L, 1L, 2L, 3L);
    assertThat(compaction.liveRows()).isEqualTo(4);
  }

  @Test
  void smallFragmentsCoveredByAnIndexAreLeftAlone() {
    List<DataFragment> fragments = List.of(fragment(0, 1), fragment(1, 1), fragment(2, 1), fragment(3, 1));
    MaintenancePlan plan = MaintenancePlanner.plan(
        manifest(fragments, List.of(index("id_idx", IndexRefreshPlan.BTREE_DETAILS, 0, 1))), POLICY);
    assertThat(plan.compaction()).isEmpty();
    assertThat(plan.notes()).anyMatch(n -> n.contains("2 small fragment(s) are covered by an index"));
  }

  @Test
  void tablesWithStableRowIdsAreNotCompacted() {
    List<DataFragment> fragments = List.of(fragment(0, 1), fragment(1, 1), fragment(2, 1));
    MaintenancePlan plan = MaintenancePlanner.plan(manifest(fragments, List.of(), FeatureFlags.STABLE_ROW_IDS),
        POLICY);
    assertThat(plan.compaction()).isEmpty();
    assertThat(plan.notes()).anyMatch(n -> n.contains("stable row ids"));
  }

  @Test
  void anIndexWithoutCoverageBlocksCompactionAndItsOwnRefresh() {
    List<DataFragment> fragments = List.of(fragment(0, 1000), fragment(1, 1), fragment(2, 1), fragment(3, 1));
    MaintenancePlan plan = MaintenancePlanner.plan(
        manifest(fragments, List.of(index("legacy", IndexRefreshPlan.BTREE_DETAILS))), POLICY);
    assertThat(plan.isEmpty()).isTrue();
    assertThat(plan.notes()).anyMatch(n -> n.contains("record no coverage"))
        .anyMatch(n -> n.contains("'legacy' records no fragment coverage"));
  }

  @Test
  void fragmentsOfUnknownSizeAreNotCompacted() {
    List<DataFragment> fragments = List.of(fragment(0, 0), withDeletions(fragment(1, 10), 0), fragment(2, 1),
        fragment(3, 1));
    MaintenancePlan plan = MaintenancePlanner.plan(manifest(fragments, List.of()), POLICY);
    assertThat(plan.compaction()).isEmpty();
    assertThat(plan.notes()).anyMatch(n -> n.startsWith("2 fragment(s)"));
  }

  @Test
  void anIndexRefreshIsDueWhenTooManyRowsAreNotCovered() {
    List<DataFragment> fragments = List.of(fragment(0, 5000), fragment(1, 300), fragment(2, 300),
        withDeletions(fragment(3, 400), 400), fragment(4, 150));
    List<IndexMetadata> indices = List.of(
        index("id_idx", IndexRefreshPlan.BTREE_DETAILS, 0),
        index("id_idx", IndexRefreshPlan.BTREE_DETAILS, 1),
        index("vec_idx", "/lance.table.VectorIndexDetails", 0, 1, 2),
        index("__lance_frag_reuse", "/lance.table.FragmentReuseIndexDetails", 0));
    TriggerPolicy strict = new TriggerPolicy(3, 100, 4, 449);
    MaintenancePlan plan = MaintenancePlanner.plan(manifest(fragments, indices), strict);
    assertThat(plan.indexRefreshes()).hasSize(1); // vec_idx misses 150 rows only
    IndexRefreshPlan refresh = plan.indexRefreshes().get(0);
    assertThat(refresh.name()).isEqualTo("id_idx");
    assertThat(refresh.segments()).hasSize(2);
    assertThat(refresh.unindexedFragmentIds()).containsExactly(2L, 4L); // fragment 3 has no live rows
    assertThat(refresh.unindexedRows()).isEqualTo(450);
    assertThat(refresh.rebuildable()).isTrue();

    TriggerPolicy lenient = new TriggerPolicy(3, 100, 4, 450);
    assertThat(MaintenancePlanner.plan(manifest(fragments, indices), lenient).indexRefreshes()).isEmpty();
    TriggerPolicy disabled = new TriggerPolicy(3, 100, 4, -1);
    assertThat(MaintenancePlanner.plan(manifest(fragments, indices), disabled).indexRefreshes()).isEmpty();
  }

  @Test
  void onlySingleColumnBTreeIndexesAreRebuildable() {
    IndexRefreshPlan vector = new IndexRefreshPlan("v", List.of(), List.of(3), "/lance.table.VectorIndexDetails",
        List.of(1L), 10);
    IndexRefreshPlan twoColumns = new IndexRefreshPlan("b", List.of(), List.of(0, 1), IndexRefreshPlan.BTREE_DETAILS,
        List.of(1L), 10);
    assertThat(vector.rebuildable()).isFalse();
    assertThat(twoColumns.rebuildable()).isFalse();
  }

  @Test
  void aRebuildCanReuseWrittenFragmentsOnlyWhileTheOldOnesAreUnchanged() {
    List<DataFragment> planned = List.of(fragment(1, 10), fragment(2, 10));
    ManifestFile appended = manifest(List.of(fragment(0, 1000), fragment(1, 10), fragment(2, 10),
        fragment(9, 3)), List.of());
    ManifestFile deleted = manifest(List.of(fragment(1, 10), withDeletions(fragment(2, 10), 4)), List.of());
    ManifestFile removed = manifest(List.of(fragment(1, 10)), List.of());
    assertThat(MaintenanceRunner.unchanged(planned, appended)).isTrue();
    assertThat(MaintenanceRunner.unchanged(planned, deleted)).isFalse();
    assertThat(MaintenanceRunner.unchanged(planned, removed)).isFalse();
  }
}
