package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.EncodedFragments;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Collections;
import java.util.IdentityHashMap;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import java.util.Set;
import java.util.function.Function;
import org.junit.jupiter.api.Test;

/**
 * A manifest file encoded with its fragments' bytes copied from the version before is byte for byte the file encoded
 * from scratch, along a chain of versions that appends, deletes, reserves, rewrites and tombstones, on a manifest
 * with fields this build does not know, and when the previous encoding cannot be used.
 */
class EncodedFragmentsTest {

  @Test
  void everyVersionOfAChainEncodesToTheSameBytesAsFromScratch() {
    List<Function<TableState, Transaction>> steps = List.of(
        s -> append(s.version(), newFragment("a", 5), newFragment("b", 7)),
        s -> append(s.version(), newFragment("c", 3)),
        s -> delete(s.version(), List.of(withDeletions(s.manifest().getFragments(1), s.version(), 2)),
            s.manifest().getFragments(0).getId()),
        s -> reserve(s.version(), 3),
        s -> rewrite(s.version(), group(List.of(s.manifest().getFragments(0), s.manifest().getFragments(1)),
            List.of(newFragment("r", 10)))),
        s -> {
          DataFragment first = s.manifest().getFragments(0);
          return delete(s.version(), List.of(first.toBuilder()
              .setFiles(0, first.getFiles(0).toBuilder().setFields(3, -2)).build()));
        },
        s -> append(s.version(), newFragment("d", 1), newFragment("e", 2)));

    TableState previous = withUnknownField(table(1, 1, fragment(0, 4), fragment(1, 6)));
    new ManifestFile(previous.manifest(), previous.indices(), Optional.empty()).encode(previous.encodeFragments(null));
    int versions = 0;
    List<Integer> copiedFragments = new java.util.ArrayList<>();
    for (Function<TableState, Transaction> step : steps) {
      Transaction txn = step.apply(previous);
      TableState next = ManifestBuilder.build(previous, txn, ctx(previous.version() + 1));
      ManifestFile file = new ManifestFile(next.manifest(), next.indices(), Optional.of(txn));

      EncodedFragments encoded = next.encodeFragments(previous);
      byte[] copied = file.encode(encoded);

      assertThat(copied).isEqualTo(file.encode());
      assertThat(file.encode(encoded)).as("encoded a second time").isEqualTo(copied);
      copiedFragments.add(encoded.copied());
      previous = next;
      versions++;
    }
    assertThat(versions).isEqualTo(steps.size());
    // each step copies the bytes of every fragment it carries over unchanged: 2 + 2 appended, 4 + 1 appended, 5 less
    // one changed and one dropped, 4 (reserve changes none), 4 less the 2 rewritten, 3 less 1 tombstoned, 3 + 2 appended
    assertThat(copiedFragments).containsExactly(2, 4, 3, 4, 2, 2, 3);
  }

  /**
   * Versions whose fragments the builder made by editing the list before ({@code FragmentEdits}: Appends, Deletes and
   * Updates, some with many removals or with fragments of reserved ids that move the list out of order) copy the bytes
   * of exactly the fragments they carry and still encode to the bytes encoded from scratch.
   */
  @Test
  void randomChainsOfEditsEncodeToTheSameBytesAsFromScratch() {
    Random random = new Random(31);
    for (int chain = 0; chain < 40; chain++) {
      List<DataFragment> initial = new ArrayList<>();
      for (int id = 0; id < 40; id++) {
        initial.add(fragment(id, 10));
      }
      TableState previous = table(1, 39, initial.toArray(DataFragment[]::new));
      new ManifestFile(previous.manifest(), previous.indices(), Optional.empty()).encode(previous.encodeFragments(null));
      List<Long> reserved = new ArrayList<>();
      for (int step = 0; step < 12; step++) {
        Transaction txn = NormalizedBuildTest.randomEdit(random, previous, reserved, chain + "/" + step).txn()
            .apply(previous);
        TableState next = ManifestBuilder.build(previous, txn, ctx(previous.version() + 1));
        ManifestFile file = new ManifestFile(next.manifest(), next.indices(), Optional.of(txn));
        EncodedFragments encoded = next.encodeFragments(previous);

        assertThat(file.encode(encoded)).as("chain %s, step %s", chain, step).isEqualTo(file.encode());
        if (step > 0) { // the first build normalizes a table read from storage: nothing is carried
          assertThat(encoded.copied()).as("chain %s, step %s", chain, step).isEqualTo(carried(previous, next));
        }
        previous = next;
      }
    }
  }

  /** Fragments of {@code next} that are {@code previous}'s very messages. */
  private static int carried(TableState previous, TableState next) {
    Set<DataFragment> before = Collections.newSetFromMap(new IdentityHashMap<>());
    before.addAll(previous.manifest().getFragmentsList());
    return (int) next.manifest().getFragmentsList().stream().filter(before::contains).count();
  }

  @Test
  void fragmentsOutOfIdOrderAreEncodedWithoutReuse() {
    DataFragment a = fragment(5, 1);
    DataFragment b = fragment(2, 1);
    TableState unordered = new TableState(table(1, 5, a, b).manifest(), List.of());
    TableState earlier = new TableState(table(1, 5, b, a).manifest(), List.of());
    earlier.encodeFragments(null);
    ManifestFile file = new ManifestFile(unordered.manifest(), List.of(), Optional.empty());

    assertThat(file.encode(unordered.encodeFragments(earlier))).isEqualTo(file.encode());
  }

  @Test
  void theEncodingOfAnotherManifestsFragmentsIsRefused() {
    TableState one = table(1, 0, fragment(0, 4));
    TableState other = table(1, 0, fragment(0, 4));
    EncodedFragments encoded = one.encodeFragments(null);

    assertThatThrownBy(() -> new ManifestFile(other.manifest(), List.of(), Optional.empty()).encode(encoded))
        .isInstanceOf(IllegalArgumentException.class);
  }

  private static TableState withUnknownField(TableState state) {
    return new TableState(state.manifest().toBuilder().setUnknownFields(UnknownFieldSet.newBuilder()
        .addField(999, UnknownFieldSet.Field.newBuilder().addVarint(42).build()).build()).build(), state.indices());
  }
}
