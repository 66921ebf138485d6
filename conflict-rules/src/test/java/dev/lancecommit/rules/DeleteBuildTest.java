package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.IndexMetadata;
import java.util.List;
import org.junit.jupiter.api.Test;

class DeleteBuildTest {

  @Test
  void deletedFragmentsGoUpdatedOnesAreReplacedAndTheHighWaterMarkStays() {
    TableState current = table(5, 2, fragment(0, 10), fragment(1, 10), fragment(2, 10));
    TableState next = ManifestBuilder.build(current,
        delete(5, List.of(withDeletions(fragment(1, 10), 5, 3)), 2L), ctx(6));

    assertThat(ids(next)).containsExactly(0L, 1L);
    assertThat(next.manifest().getFragments(1).getDeletionFile().getNumDeletedRows()).isEqualTo(3);
    assertThat(next.manifest().getFragments(0)).isEqualTo(current.manifest().getFragments(0));
    assertThat(maxFragmentId(next)).isEqualTo(2);
    assertThat(next.manifest().getReaderFeatureFlags() & FeatureFlags.DELETION_FILES).isNotZero();
  }

  @Test
  void deletingEveryFragmentKeepsTheHighWaterMarkSoIdsAreNeverReused() {
    TableState current = table(5, 2, fragment(0, 10), fragment(2, 10));
    TableState empty = ManifestBuilder.build(current, delete(5, List.of(), 0L, 2L), ctx(6));
    assertThat(empty.manifest().getFragmentsCount()).isZero();
    assertThat(maxFragmentId(empty)).isEqualTo(2);

    TableState refilled = ManifestBuilder.build(empty, append(6, newFragment("a", 1)), ctx(7));
    assertThat(ids(refilled)).containsExactly(3L);
  }

  @Test
  void indicesAreRetainedByLanceRules() {
    IndexMetadata scalarOnDeleted = scalarIndex(1, "name_idx", 3, 1, 2);
    IndexMetadata vectorOnDeleted = vectorIndex(2, "vec_idx", 3, 2, 2);
    IndexMetadata scalarLive = scalarIndex(3, "id_idx", 3, 0, 0, 2);
    TableState current = withIndices(table(5, 2, fragment(0, 10), fragment(2, 10)),
        scalarOnDeleted, vectorOnDeleted, scalarLive);

    TableState next = ManifestBuilder.build(current, delete(5, List.of(), 2L), ctx(6));

    // a lone scalar segment survives even when it covers nothing; an empty vector segment does not
    assertThat(next.indices()).containsExactly(scalarOnDeleted, scalarLive);
    // bitmaps are not shrunk for deleted fragments
    assertThat(bitmapIds(next.indices().get(1))).containsExactly(0L, 2L);
  }
}
