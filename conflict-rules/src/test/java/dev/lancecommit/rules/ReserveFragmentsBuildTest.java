package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.TableState;
import org.junit.jupiter.api.Test;

class ReserveFragmentsBuildTest {

  @Test
  void reservingMovesOnlyTheHighWaterMark() {
    TableState current = withIndices(table(2, 3, fragment(0, 1), fragment(3, 1)), scalarIndex(1, "i", 1, 0, 0));
    TableState next = ManifestBuilder.build(current, reserve(2, 4), ctx(3));
    assertThat(maxFragmentId(next)).isEqualTo(7);
    assertThat(next.manifest().getFragmentsList()).isEqualTo(current.manifest().getFragmentsList());
    assertThat(next.indices()).isEqualTo(current.indices());

    TableState appended = ManifestBuilder.build(next, append(3, newFragment("a", 1)), ctx(4));
    assertThat(ids(appended)).containsExactly(0L, 3L, 8L);
  }

  @Test
  void reservingOnATableWithoutFragmentsCountsFromZero() {
    TableState empty = new TableState(manifest(1).build(), java.util.List.of());
    TableState next = ManifestBuilder.build(empty, reserve(1, 3), ctx(2));
    assertThat(maxFragmentId(next)).isEqualTo(3);
  }

  @Test
  void theIdSpaceIsNotOverrun() {
    TableState current = table(2, (int) 0xFFFF_FFF0L, fragment(0, 1));
    assertThat(maxFragmentId(ManifestBuilder.build(current, reserve(2, 15), ctx(3)))).isEqualTo(0xFFFF_FFFFL);
    assertThatThrownBy(() -> ManifestBuilder.build(current, reserve(2, 16), ctx(3)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("Cannot reserve 16");
  }
}
