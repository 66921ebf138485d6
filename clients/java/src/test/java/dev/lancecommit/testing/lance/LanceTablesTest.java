package dev.lancecommit.testing.lance;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import java.util.List;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class LanceTablesTest {

  @TempDir
  Path dir;

  @Test
  void writesCommitsAndReadsEveryVersionBack() {
    try (LanceTables lance = LanceTables.local(dir.resolve("t.lance"))) {
      assertThat(lance.createWithLance(0, 3)).isEqualTo(1);
      assertThat(lance.appendWithLance(3, 2)).isEqualTo(2);
      // From a stale read version: Lance's commit loop rebases the append over v2.
      assertThat(lance.commitAppendWithLance(1, lance.writeRows(5, 4, 2))).isEqualTo(3);

      assertThat(lance.versions()).containsExactly(1L, 2L, 3L);
      assertThat(lance.latestVersion()).isEqualTo(3);
      assertThat(lance.readIds(1)).containsExactlyInAnyOrderElementsOf(ids(0, 3));
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 5));
      assertThat(lance.readIds(3)).containsExactlyInAnyOrderElementsOf(ids(0, 9));
      assertThat(lance.countRows(2)).isEqualTo(5);
      List<Object> values = lance.readColumn(3, "value");
      assertThat(values).containsExactlyInAnyOrderElementsOf(
          ids(0, 9).stream().map(LanceTables::valueOf).map(Object.class::cast).toList());
    }
  }

  @Test
  void writeRowsSplitsIntoFragmentsOfTheAskedSize() {
    try (LanceTables lance = LanceTables.local(dir.resolve("w.lance"))) {
      assertThat(lance.writeRows(0, 10, 4)).extracting(f -> f.getPhysicalRows()).containsExactly(4L, 4L, 2L);
      assertThat(lance.writeRows(0, 10)).hasSize(1);
    }
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
