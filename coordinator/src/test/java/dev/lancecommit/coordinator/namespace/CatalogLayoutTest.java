package dev.lancecommit.coordinator.namespace;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class CatalogLayoutTest {
  private final CatalogLayout layout = new CatalogLayout("wh/_catalog");

  @Test
  void revisionNamesSortNumericallyAndParseBack() {
    assertThat(CatalogLayout.revisionName(1)).isEqualTo("v00000000000000000001.json");
    assertThat(CatalogLayout.revisionName(12)).isGreaterThan(CatalogLayout.revisionName(9));
    for (long revision : new long[] {1, 9, 10, 123456789, Long.MAX_VALUE}) {
      assertThat(CatalogLayout.parseRevision(CatalogLayout.revisionName(revision))).hasValue(revision);
    }
    for (String other : List.of("v1.json", "v00000000000000000000.json", "x00000000000000000001.json",
        "v0000000000000000000a.json", "v00000000000000000001.jso", ".tmp-v00000000000000000001.json",
        "v99999999999999999999.json")) {
      assertThat(CatalogLayout.parseRevision(other)).as(other).isEmpty();
    }
    assertThatThrownBy(() -> CatalogLayout.revisionName(0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void entryDirectoriesKeepNamespacesAndTablesApart() {
    assertThat(layout.namespaceDir(List.of("a"))).isEqualTo("wh/_catalog/tree/_namespaces/a");
    assertThat(layout.namespaceDir(List.of("a", "b c"))).isEqualTo("wh/_catalog/tree/a/_namespaces/b%20c");
    assertThat(layout.tableDir(List.of("t"))).isEqualTo("wh/_catalog/tree/_tables/t");
    assertThat(layout.tableDir(List.of("a", "b c", "t"))).isEqualTo("wh/_catalog/tree/a/b%20c/_tables/t");
    assertThat(layout.tablesIn(List.of())).isEqualTo("wh/_catalog/tree/_tables");
    assertThat(layout.namespacesIn(List.of("a"))).isEqualTo("wh/_catalog/tree/a/_namespaces");
  }

  @Test
  void locateInvertsTheLayout() {
    List<List<String>> ids = List.of(List.of("t"), List.of("a", "t"), List.of("a", "b c", "ü%"),
        List.of("tables"), List.of("_x".substring(1)));
    for (List<String> id : ids) {
      String tableKey = layout.revisionKey(layout.tableDir(id), 3);
      assertThat(layout.locate(tableKey)).hasValue(new CatalogLayout.Located(CatalogLayout.Kind.TABLE, id, 3));
      String nsKey = layout.revisionKey(layout.namespaceDir(id), 7);
      assertThat(layout.locate(nsKey)).hasValue(new CatalogLayout.Located(CatalogLayout.Kind.NAMESPACE, id, 7));
    }
    for (String other : List.of("wh/_catalog/.probe", "wh/_catalog/tree/_tables/t/latest.json",
        "wh/_catalog/tree/a/_other/t/v00000000000000000001.json", "wh/other/tree/_tables/t/v00000000000000000001.json",
        "wh/_catalog/tree/_x/_tables/t/v00000000000000000001.json")) {
      assertThat(layout.locate(other)).as(other).isEmpty();
    }
  }

  @Test
  void identifiersWhoseKeysWouldBeTooLongAreRefused() {
    String part = "p".repeat(240);
    List<String> deep = List.of(part, part, part, part, part, "t");
    assertThatThrownBy(() -> layout.tableDir(deep)).isInstanceOf(InvalidCatalogInputException.class)
        .hasMessageContaining("too long");
  }
}
