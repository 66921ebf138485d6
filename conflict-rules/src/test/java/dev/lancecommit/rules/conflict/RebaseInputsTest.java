package dev.lancecommit.rules.conflict;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.rules.InvalidTransactionException;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

class RebaseInputsTest {

  private static byte[] portable(Roaring64NavigableMap map) throws IOException {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataOutputStream data = new DataOutputStream(out)) {
      map.serializePortable(data);
    }
    return out.toByteArray();
  }

  @Test
  void decodesPortableAffectedRows() throws IOException {
    Roaring64NavigableMap rows = Roaring64NavigableMap.bitmapOf((3L << 32) | 7, (5L << 32) | 1);
    RebaseInputs inputs = RebaseInputs.of(Optional.of(portable(rows)), true);
    assertThat(inputs.affectedRows()).contains(rows);
    assertThat(inputs.rebaseAllowed()).isTrue();
    assertThat(RebaseInputs.of(Optional.empty(), false).hasAffectedRows()).isFalse();
    assertThat(RebaseInputs.of(Optional.empty(), false).rebaseAllowed()).isFalse();
  }

  @Test
  void refusesGarbageAffectedRows() {
    assertThatThrownBy(() -> RebaseInputs.of(Optional.of(new byte[] {1, 2, 3}), true))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("affected_rows");
  }

  @Test
  void affectedRowsAreCopiedInAndOut() {
    Roaring64NavigableMap rows = Roaring64NavigableMap.bitmapOf(1L);
    RebaseInputs inputs = RebaseInputs.builder().affectedRows(rows).build();
    rows.addLong(2L);
    inputs.affectedRows().orElseThrow().addLong(3L);
    assertThat(inputs.affectedRows().orElseThrow().getLongCardinality()).isEqualTo(1);
  }

  @Test
  void initialFragmentsModifiedByATransactionAreTheOnesItUpdatesOrRemoves() {
    List<DataFragment> fragments = List.of(Txns.fragment(1), Txns.fragment(2), Txns.fragment(3),
        Txns.fragment(4), Txns.fragment(5));
    TableState atReadVersion = stateOf(fragments);

    RebaseInputs update = RebaseInputs.builder()
        .initialFragmentsModifiedBy(Txns.update(List.of(Txns.fragment(4)), 2), atReadVersion).build();
    RebaseInputs delete = RebaseInputs.builder()
        .initialFragmentsModifiedBy(Txns.delete(List.of(Txns.fragment(5)), 1, 3), atReadVersion).build();
    RebaseInputs append = RebaseInputs.builder()
        .initialFragmentsModifiedBy(Txns.append(9), atReadVersion).build();

    assertThat(update.initialFragments().orElseThrow()).containsOnlyKeys(2L, 4L)
        .containsEntry(4L, fragments.get(3));
    assertThat(delete.initialFragments().orElseThrow()).containsOnlyKeys(1L, 3L, 5L);
    assertThat(append.initialFragments().orElseThrow()).isEmpty();
  }

  @Test
  void initialFragmentsAreFoundInAnyOrderAndOnesTheReadVersionLacksAreLeftOut() {
    List<DataFragment> unsorted = List.of(Txns.fragment(5), Txns.fragment(1), Txns.fragment(3));

    RebaseInputs inputs = RebaseInputs.builder()
        .initialFragmentsModifiedBy(Txns.delete(List.of(Txns.fragment(3)), 1, 7), stateOf(unsorted)).build();

    assertThat(inputs.initialFragments().orElseThrow()).containsOnlyKeys(1L, 3L)
        .containsEntry(3L, unsorted.get(2)).containsEntry(1L, unsorted.get(1));
  }

  private static TableState stateOf(List<DataFragment> fragments) {
    return new TableState(Manifest.newBuilder().setVersion(4).addAllFragments(fragments).build(), List.of());
  }

  @Test
  void initialFragmentsAreKeyedById() {
    RebaseInputs inputs = RebaseInputs.builder().initialFragments(List.of(Txns.fragment(4), Txns.fragment(2))).build();
    assertThat(inputs.initialFragments().orElseThrow()).containsOnlyKeys(2L, 4L);
    assertThatThrownBy(() -> RebaseInputs.builder().initialFragments(List.of(Txns.fragment(4), Txns.fragment(4))))
        .isInstanceOf(IllegalArgumentException.class);
    Map<Long, DataFragment> mislabelled = Map.of(5L, Txns.fragment(4));
    assertThatThrownBy(() -> RebaseInputs.builder().initialFragments(mislabelled))
        .isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void defaultsAllowRebaseWithoutInputs() {
    assertThat(RebaseInputs.defaults().rebaseAllowed()).isTrue();
    assertThat(RebaseInputs.defaults().initialFragments()).isEmpty();
    assertThat(RebaseInputs.noRebase().rebaseAllowed()).isFalse();
    assertThat(RebaseInputs.noRebase().toBuilder().rebaseAllowed(true).build().rebaseAllowed()).isTrue();
  }
}
