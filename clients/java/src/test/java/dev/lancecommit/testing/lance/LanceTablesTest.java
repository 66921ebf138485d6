package dev.lancecommit.testing.lance;

import static org.assertj.core.api.Assertions.assertThat;

import java.lang.reflect.Method;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.LongStream;
import org.junit.jupiter.api.Test;
import org.lance.CommitBuilder;
import org.lance.Dataset;
import org.lance.Session;
import org.lance.Transaction;
import org.lance.operation.Append;
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

  @Test
  void sharingOneSessionGivesEveryOpenAndEveryCommittedDatasetTheSameSession() throws Exception {
    try (LanceTables lance = LanceTables.sharingOneSession(dir.resolve("s.lance").toString(), Map.of())) {
      lance.createWithLance(0, 3);
      Session shared = lance.session().orElseThrow();
      try (Dataset first = lance.open(); Dataset second = lance.open(1)) {
        assertThat(first.session().isSameAs(shared)).isTrue();
        assertThat(second.session().isSameAs(shared)).isTrue();
        try (Transaction txn = new Transaction(first.version(),
                Append.builder().fragments(lance.writeRows(3, 2)).build());
             Dataset next = new CommitBuilder(first).execute(txn)) {
          assertThat(next.version()).isEqualTo(2);
          // Lance Java sets Dataset.session() only on datasets opened with one; ask the native side instead.
          try (Session ofNext = nativeSession(next)) {
            assertThat(ofNext.isSameAs(shared)).as("what Lance's commit returns keeps the session").isTrue();
          }
        }
      }
      assertThat(lance.readIds(2)).containsExactlyInAnyOrderElementsOf(ids(0, 5));
      try (LanceTables own = LanceTables.local(dir.resolve("s.lance"));
           Dataset apart = own.open();
           Session ofApart = nativeSession(apart)) {
        assertThat(ofApart.isSameAs(shared)).as("a dataset opened without the shared session").isFalse();
      }
    }
    try (LanceTables own = LanceTables.local(dir.resolve("s.lance"))) {
      assertThat(own.session()).isEmpty();
      try (Dataset first = own.open(); Dataset second = own.open()) {
        assertThat(first.session().isSameAs(second.session())).as("each open makes its own").isFalse();
      }
    }
  }

  /** The Session a dataset holds natively (Lance Java has no public accessor for one it did not open itself). */
  private static Session nativeSession(Dataset ds) throws ReflectiveOperationException {
    Method handle = Dataset.class.getDeclaredMethod("nativeGetSessionHandle");
    handle.setAccessible(true);
    Method of = Session.class.getDeclaredMethod("fromHandle", long.class);
    of.setAccessible(true);
    return (Session) of.invoke(null, (long) handle.invoke(ds));
  }

  private static List<Long> ids(long from, long to) {
    return LongStream.range(from, to).boxed().toList();
  }
}
