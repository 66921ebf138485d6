package dev.lancecommit.chaos.property;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.testing.lance.LanceTables;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.index.Index;
import org.lance.ipc.ScanOptions;

/** What must hold after every step, checked on the table as stock Lance reads it. */
final class TableInvariants {
  private TableInvariants() {}

  static void check(LanceTables table, TableModel model, String context) {
    try (Dataset ds = table.open()) {
      assertThat(ds.version()).as("latest version %s", context).isEqualTo(model.version());

      List<Integer> fragmentIds = ds.getFragments().stream().map(Fragment::getId).toList();
      assertThat(fragmentIds).as("fragment ids are unique %s", context).doesNotHaveDuplicates();

      Map<Long, String> rows = new TreeMap<>();
      for (List<Object> row : Writer.scan(ds, new ScanOptions.Builder().columns(List.of("id", "value")).build())) {
        String previous = rows.put(((Number) row.get(0)).longValue(), String.valueOf(row.get(1)));
        assertThat(previous).as("row id %s appears twice %s", row.get(0), context).isNull();
      }
      assertThat(rows).as("rows (id -> value) %s", context).isEqualTo(new TreeMap<>(model.rows()));
      Set<Long> resurrected = new HashSet<>(rows.keySet());
      resurrected.retainAll(model.gone());
      assertThat(resurrected).as("deleted or overwritten rows seen again %s", context).isEmpty();
      assertThat(new TreeMap<>(ds.getConfig())).as("config %s", context).isEqualTo(model.config());

      for (Index index : ds.getIndexes()) {
        checkIndex(table, ds, index, fragmentIds, model, context);
      }
    }
  }

  /**
   * An index may only claim fragments it was built over: its bitmap, restricted to fragments that still exist, must
   * lie within the fragments of the version it was built on. And a lookup through it must find exactly the rows the
   * model holds (a fragment claimed but not indexed would hide rows; one indexed but not claimed is scanned).
   */
  private static void checkIndex(LanceTables table, Dataset ds, Index index, List<Integer> fragmentIds,
      TableModel model, String context) {
    List<Integer> bitmap = index.fragments().orElse(List.of());
    Set<Integer> claimedLive = new HashSet<>(bitmap);
    claimedLive.retainAll(fragmentIds);
    Set<Integer> atBuild = new HashSet<>();
    try (Dataset built = table.open(index.datasetVersion())) {
      built.getFragments().forEach(f -> atBuild.add(f.getId()));
    }
    assertThat(atBuild).as("index %s (built at v%s, bitmap %s) claims only fragments it was built over %s",
        index.name(), index.datasetVersion(), bitmap, context).containsAll(claimedLive);

    List<Long> probes = new ArrayList<>();
    List<Long> present = new ArrayList<>(model.rows().keySet());
    for (int i = 0; i < present.size(); i += Math.max(1, present.size() / 3)) {
      probes.add(present.get(i));
    }
    model.gone().stream().sorted().limit(2).forEach(probes::add);
    for (long id : probes) {
      long expected = model.rows().containsKey(id) ? 1 : 0;
      assertThat(ds.countRows("id = " + id)).as("lookup of id %s with index %s (bitmap %s, fragments %s) %s", id,
          index.name(), bitmap, fragmentIds, context).isEqualTo(expected);
    }
  }
}
