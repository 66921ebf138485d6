package dev.lancecommit.coordinator.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** GetTableStats from a manifest alone: row counts, bytes, indices and the fragment-length distribution. */
class TableStatisticsTest {

  @Test
  void countsLiveRowsBytesIndicesAndSmallFragments() {
    List<String> asked = new ArrayList<>();
    TableState state = new TableState(Manifest.newBuilder()
        .addFragments(fragment(0, 150_000, 1000, "a.lance", 4_000))
        .addFragments(fragment(1, 10, 0, "b.lance", 100))
        .addFragments(fragment(2, 100_000, 0, "c.lance", 0)) // size unrecorded: asked for
        .addFragments(DataFragment.newBuilder().setId(3).setPhysicalRows(7)
            .addFiles(DataFile.newBuilder().setPath("shared.lance").setBaseId(1))) // through a base path
        .build(),
        List.of(index("id_idx"), index("id_idx"), index("value_idx"), index("__lance_frag_reuse")));

    TableStatistics stats = TableStatistics.of(state, path -> {
      asked.add(path);
      return 900;
    });

    assertThat(stats.numRows()).isEqualTo(149_000 + 10 + 100_000 + 7);
    assertThat(stats.totalBytes()).isEqualTo(4_000 + 100 + 900);
    assertThat(asked).containsExactly("c.lance");
    assertThat(stats.numIndices()).isEqualTo(2); // segments of one index count once; system indices not at all
    assertThat(stats.numFragments()).isEqualTo(4);
    assertThat(stats.numSmallFragments()).isEqualTo(2); // 10 and 7 rows; 100_000 is not below the threshold
    // sorted 7, 10, 100_000, 149_000: p25 at rank (4-1)*25/100 = 0, p50 at 1, p75 and p99 at 2
    assertThat(stats.lengths()).isEqualTo(new TableStatistics.Lengths(7, 149_000, 249_017 / 4,
        7, 10, 100_000, 100_000));
  }

  @Test
  void percentilesTakeTheSortedCountAtTheirRank() {
    Manifest.Builder manifest = Manifest.newBuilder();
    for (int i = 0; i < 100; i++) {
      manifest.addFragments(fragment(i, 100 - i, 0, i + ".lance", 1)); // 1..100 rows
    }
    TableStatistics stats = TableStatistics.of(new TableState(manifest.build(), List.of()), path -> 0);
    assertThat(stats.lengths()).isEqualTo(new TableStatistics.Lengths(1, 100, 50, 25, 50, 75, 99));
  }

  @Test
  void aTableWithoutFragmentsIsAllZeros() {
    TableStatistics stats = TableStatistics.of(new TableState(Manifest.getDefaultInstance(), List.of()), p -> 0);
    assertThat(stats).isEqualTo(TableStatistics.empty());
  }

  private static DataFragment fragment(long id, long rows, long deleted, String path, long size) {
    DataFragment.Builder fragment = DataFragment.newBuilder().setId(id).setPhysicalRows(rows)
        .addFiles(DataFile.newBuilder().setPath(path).setFileSizeBytes(size));
    if (deleted > 0) {
      fragment.setDeletionFile(DeletionFile.newBuilder().setId(1).setNumDeletedRows(deleted));
    }
    return fragment.build();
  }

  private static IndexMetadata index(String name) {
    return IndexMetadata.newBuilder().setName(name).build();
  }
}
