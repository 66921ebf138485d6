package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import java.util.List;
import org.junit.jupiter.api.Test;

class FragmentNamesakesTest {
  private static DataFragment fragment(long id, long rows) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(rows).build();
  }

  @Test
  void matchesEachFragmentWithItsNamesakeAndTellsCarriedFromReplaced() {
    DataFragment f1 = fragment(1, 10);
    DataFragment f2 = fragment(2, 10);
    DataFragment f4 = fragment(4, 10);
    DataFragment f5 = fragment(5, 10);
    DataFragment f2Again = fragment(2, 10); // equal content, another message: not carried
    DataFragment f4Changed = fragment(4, 7);
    DataFragment f6 = fragment(6, 3);

    // 1 carried, 2 rebuilt as an equal message, 3 never existed, 4 replaced, 5 removed, 6 added
    FragmentNamesakes match = FragmentNamesakes.of(List.of(f1, f2, f4, f5), List.of(f1, f2Again, f4Changed, f6));

    assertThat(match.size()).isEqualTo(4);
    assertThat(match.namesake(0)).isEqualTo(0);
    assertThat(match.carried(0)).isTrue();
    assertThat(match.namesake(1)).isEqualTo(1);
    assertThat(match.carried(1)).isFalse();
    assertThat(match.namesakeOf(1)).isSameAs(f2);
    assertThat(match.namesake(2)).isEqualTo(2);
    assertThat(match.carried(2)).isFalse();
    assertThat(match.namesakeOf(2)).isSameAs(f4);
    assertThat(match.next(2)).isSameAs(f4Changed);
    assertThat(match.namesake(3)).isEqualTo(-1);
    assertThat(match.namesakeOf(3)).isNull();
    assertThat(match.carried(3)).isFalse();
  }

  @Test
  void aCarriedRunAfterRemovedFragmentsIsStillFound() {
    DataFragment[] before = new DataFragment[6];
    for (int i = 0; i < before.length; i++) {
      before[i] = fragment(i, 1);
    }
    // 0 and 1 removed (compaction), 2..5 carried, 9 added
    DataFragment added = fragment(9, 1);
    FragmentNamesakes match = FragmentNamesakes.of(List.of(before),
        List.of(before[2], before[3], before[4], before[5], added));
    for (int i = 0; i < 4; i++) {
      assertThat(match.namesake(i)).isEqualTo(i + 2);
      assertThat(match.carried(i)).isTrue();
    }
    assertThat(match.namesake(4)).isEqualTo(-1);
  }

  @Test
  void nothingBeforeMeansNoNamesakes() {
    FragmentNamesakes match = FragmentNamesakes.of(List.of(), List.of(fragment(0, 1), fragment(1, 1)));
    assertThat(match.namesake(0)).isEqualTo(-1);
    assertThat(match.namesake(1)).isEqualTo(-1);
    assertThat(FragmentNamesakes.of(List.of(fragment(0, 1)), List.of()).size()).isZero();
  }
}
