package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.DataFragment;
import java.util.ArrayList;
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

      ArrayList<DataFragment> spliced = FragmentSplice.apply(table, true, replacements, removed, 3);
      ArrayList<DataFragment> walked = FragmentSplice.apply(table, false, replacements, removed, 3);

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
    }
  }
}
