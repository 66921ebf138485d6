package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
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

  @Test
  void aVersionThatAppendsCarriesTheWholeTableAsItsPrefix() {
    List<DataFragment> before = new ArrayList<>();
    for (int i = 0; i < 1_000; i++) {
      before.add(fragment(i, 1));
    }
    List<DataFragment> after = new ArrayList<>(before);
    after.add(fragment(1_000, 1));
    after.add(fragment(1_001, 1));

    FragmentNamesakes match = FragmentNamesakes.of(before, after);

    assertThat(match.carriedPrefix()).isEqualTo(1_000);
    assertThat(match.carried(999)).isTrue();
    assertThat(match.namesake(999)).isEqualTo(999);
    assertThat(match.namesakeOf(0)).isSameAs(before.get(0));
    assertThat(match.carried(1_000)).isFalse();
    assertThat(match.namesake(1_001)).isEqualTo(-1);
  }

  @Test
  void thePrefixEndsAtTheFirstFragmentThatIsNotTheSameMessage() {
    DataFragment f0 = fragment(0, 1);
    DataFragment f1 = fragment(1, 1);
    DataFragment f2 = fragment(2, 1);
    DataFragment f1Changed = fragment(1, 2);

    FragmentNamesakes match = FragmentNamesakes.of(List.of(f0, f1, f2), List.of(f0, f1Changed, f2));

    assertThat(match.carriedPrefix()).isEqualTo(1);
    assertThat(match.carried(1)).isFalse();
    assertThat(match.namesakeOf(1)).isSameAs(f1);
    assertThat(match.carried(2)).as("carried after the prefix, found by the walk").isTrue();
    assertThat(match.namesake(2)).isEqualTo(2);
    assertThat(FragmentNamesakes.of(List.of(f0, f1), List.of(f0)).carriedPrefix()).isEqualTo(1);
  }

  /**
   * Random edits of a sorted table (fragments kept, replaced by a new message with the same id, removed, added after
   * the last or between others) against the plain definition: the namesake is the previous fragment with the same id,
   * carried when it is the same message.
   */
  @Property(tries = 300)
  void agreesWithAMapOfEveryFragmentById(@ForAll @IntRange(min = 0, max = 60) int size, @ForAll long seed) {
    Random random = new Random(seed);
    List<DataFragment> before = new ArrayList<>();
    long id = 0;
    for (int i = 0; i < size; i++) {
      id += 1 + random.nextInt(3);
      before.add(fragment(id, 1));
    }
    List<DataFragment> after = new ArrayList<>();
    boolean editing = random.nextBoolean(); // half the time a long untouched prefix, then edits
    int untouched = editing ? random.nextInt(size + 1) : 0;
    for (int i = 0; i < before.size(); i++) {
      DataFragment fragment = before.get(i);
      int edit = i < untouched ? 0 : random.nextInt(5);
      switch (edit) {
        case 1 -> after.add(fragment(fragment.getId(), 2)); // replaced
        case 2 -> { } // removed
        case 3 -> {
          after.add(fragment);
          long next = i + 1 < before.size() ? before.get(i + 1).getId() : fragment.getId() + 2;
          if (next - fragment.getId() > 1) {
            after.add(fragment(fragment.getId() + 1, 3)); // added between
          }
        }
        default -> after.add(fragment);
      }
    }
    for (int i = random.nextInt(3); i > 0; i--) {
      id += 1 + random.nextInt(3);
      after.add(fragment(id, 1));
    }
    Map<Long, Integer> indexById = new HashMap<>();
    for (int i = 0; i < before.size(); i++) {
      indexById.put(before.get(i).getId(), i);
    }

    FragmentNamesakes match = FragmentNamesakes.of(before, after);

    assertThat(match.size()).isEqualTo(after.size());
    int prefix = 0;
    while (prefix < after.size() && prefix < before.size() && after.get(prefix) == before.get(prefix)) {
      prefix++;
    }
    assertThat(match.carriedPrefix()).isEqualTo(prefix);
    for (int i = 0; i < after.size(); i++) {
      int expected = indexById.getOrDefault(after.get(i).getId(), -1);
      assertThat(match.namesake(i)).as("namesake of %s", i).isEqualTo(expected);
      assertThat(match.carried(i)).as("carried %s", i).isEqualTo(expected >= 0 && before.get(expected) == after.get(i));
      assertThat(match.next(i)).isSameAs(after.get(i));
    }
  }

  /**
   * The builder's edits of a list ({@link FragmentEdits}: places removed, replaced, then new ones) give the same
   * namesakes, carried fragments and changed places as the walk of both lists, reading only the changed fragments;
   * among the new ones, an id the version before had (removed and added again) still finds its namesake.
   */
  @Test
  void editsGiveWhatTheWalkOfBothListsGives() {
    Random random = new Random(5);
    for (int trial = 0; trial < 400; trial++) {
      List<DataFragment> previous = new ArrayList<>();
      long id = random.nextInt(3);
      for (int i = random.nextInt(30); i > 0; i--) {
        previous.add(fragment(id, 1));
        id += 1 + random.nextInt(3);
      }
      List<DataFragment> next = new ArrayList<>();
      List<Integer> removedAt = new ArrayList<>();
      List<Integer> replacedAt = new ArrayList<>();
      for (int i = 0; i < previous.size(); i++) {
        int roll = random.nextInt(8);
        if (roll == 0) {
          removedAt.add(i);
        } else if (roll == 1) {
          replacedAt.add(next.size());
          next.add(fragment(previous.get(i).getId(), 2));
        } else if (roll == 2) {
          replacedAt.add(next.size()); // named replaced, yet the very same message: carried after all
          next.add(previous.get(i));
        } else {
          next.add(previous.get(i));
        }
      }
      int tailFrom = next.size();
      if (!removedAt.isEmpty() && removedAt.get(removedAt.size() - 1) == previous.size() - 1 && random.nextBoolean()) {
        next.add(fragment(previous.get(previous.size() - 1).getId(), 5)); // the last one removed, its id added again
      }
      for (int i = random.nextInt(3); i > 0; i--) {
        next.add(fragment(id++, 1));
      }
      FragmentEdits edits = new FragmentEdits(removedAt.stream().mapToInt(Integer::intValue).toArray(),
          replacedAt.stream().mapToInt(Integer::intValue).toArray(), tailFrom);
      TableState state = TableState.normalized(Manifest.newBuilder().addAllFragments(next).build(), List.of(),
          previous, edits);

      FragmentNamesakes fromEdits = FragmentNamesakes.of(previous, state);
      FragmentNamesakes walked = FragmentNamesakes.of(previous, state.manifest().getFragmentsList());

      assertThat(fromEdits.carriedPrefix()).as("trial %s", trial).isLessThanOrEqualTo(walked.carriedPrefix());
      assertThat(fromEdits.changed()).as("trial %s", trial).containsExactly(walked.changed());
      List<Integer> notCarried = new ArrayList<>();
      for (int i = 0; i < next.size(); i++) {
        if (next.get(i) != (walked.namesakeOf(i))) {
          notCarried.add(i);
        }
      }
      assertThat(walked.changed()).as("trial %s", trial)
          .containsExactly(notCarried.stream().mapToInt(Integer::intValue).toArray());
      for (int i = 0; i < next.size(); i++) {
        assertThat(fromEdits.namesake(i)).as("trial %s, place %s", trial, i).isEqualTo(walked.namesake(i));
        assertThat(fromEdits.carried(i)).as("trial %s, place %s", trial, i).isEqualTo(walked.carried(i));
      }
      // other lists than the one edited are walked
      assertThat(state.editsFrom(new ArrayList<>(previous))).isNull();
      assertThat(state.editsFrom(previous)).isSameAs(edits);
    }
  }
}
