package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.FragmentEdits;
import dev.lancecommit.format.pb.DataFragment;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.Set;
import org.junit.jupiter.api.Test;

class FragmentSpliceTest {

  @Test
  void replacesAndRemovesInPlaceAsAWalkOverEveryFragmentWould() {
    Random random = new Random(7);
    for (int trial = 0; trial < 500; trial++) {
      List<DataFragment> table = new ArrayList<>();
      long id = random.nextInt(3);
      for (int i = random.nextInt(40); i > 0; i--) {
        table.add(DataFragment.newBuilder().setId(id).setPhysicalRows(1).build());
        id += 1 + random.nextInt(3);
      }
      Map<Long, DataFragment> replacements = new HashMap<>();
      Set<Long> removed = new HashSet<>();
      for (int i = random.nextInt(6); i > 0; i--) { // ids of the table, and ids it does not have
        long touched = random.nextInt((int) id + 2);
        replacements.put(touched, DataFragment.newBuilder().setId(touched).setPhysicalRows(2).build());
      }
      for (int i = random.nextInt(6); i > 0; i--) {
        removed.add((long) random.nextInt((int) id + 2));
      }
      removed.addAll(replacements.keySet().stream().filter(x -> random.nextInt(4) == 0).toList());

      FragmentSplice.Spliced splice = FragmentSplice.apply(table, true, replacements, removed, 3);
      ArrayList<DataFragment> spliced = splice.fragments();
      ArrayList<DataFragment> walked = FragmentSplice.apply(table, false, replacements, removed, 3).fragments();

      List<DataFragment> expected = new ArrayList<>();
      for (DataFragment fragment : table) {
        if (!removed.contains(fragment.getId())) {
          expected.add(replacements.getOrDefault(fragment.getId(), fragment));
        }
      }
      assertThat(spliced).as("trial %s", trial).isEqualTo(expected);
      assertThat(walked).as("trial %s", trial).isEqualTo(expected);
      for (int i = 0; i < expected.size(); i++) {
        assertThat(spliced.get(i)).as("the very message, trial %s", trial).isSameAs(expected.get(i));
      }

      // The edits name what changed: the table with the removed places taken out holds the spliced list's very
      // messages everywhere but at the replaced places.
      FragmentEdits edits = splice.edits();
      assertThat(edits.tailFrom()).isEqualTo(spliced.size());
      List<Integer> removedAt = new ArrayList<>();
      for (int i = 0; i < table.size(); i++) {
        if (removed.contains(table.get(i).getId())) {
          removedAt.add(i);
        }
      }
      assertThat(Arrays.stream(edits.removedAt()).boxed().toList()).as("trial %s", trial).isEqualTo(removedAt);
      List<DataFragment> left = new ArrayList<>(table);
      for (int k = removedAt.size() - 1; k >= 0; k--) {
        left.remove((int) removedAt.get(k));
      }
      List<Integer> replacedAt = new ArrayList<>();
      for (int i = 0; i < left.size(); i++) {
        if (left.get(i) != spliced.get(i)) {
          replacedAt.add(i);
        }
      }
      List<Integer> named = Arrays.stream(edits.replacedAt()).boxed().toList();
      assertThat(named).as("trial %s", trial).isSorted().doesNotHaveDuplicates().containsAll(replacedAt);
      assertThat(named).allSatisfy(at -> assertThat(replacements).containsKey(spliced.get(at).getId()));
      assertThat(FragmentSplice.apply(table, false, replacements, removed, 3).edits()).isNull();
    }
  }
}
