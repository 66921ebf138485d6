package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.EncodedFragments;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Random;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;

/**
 * A version whose first fragments are the version before's, in their places (every Append; a change late in the
 * table), is built and encoded looking only past them. Random chains of appends, deletions, rewrites and reservations
 * on tables of up to a few hundred fragments hold that to the full build and the full encoding: each version built on
 * the builder's own state equals the same step on that version read back from storage, and its manifest file is byte
 * for byte the file encoded from scratch.
 */
class CarriedPrefixBuildTest {

  @Property(tries = 60)
  void randomChainsBuildAndEncodeAsFromScratch(@ForAll @IntRange(min = 0, max = 300) int initialFragments,
      @ForAll long seed) {
    Random random = new Random(seed);
    DataFragment[] initial = new DataFragment[initialFragments];
    for (int i = 0; i < initialFragments; i++) {
      initial[i] = fragment(i, 1 + random.nextInt(5));
    }
    TableState stored = table(1, Math.max(0, initialFragments - 1), initial);
    TableState built = ManifestBuilder.build(stored, append(1, newFragment("first", 1)), ctx(2));
    new ManifestFile(built.manifest(), built.indices(), Optional.empty()).encode(built.encodeFragments(null));

    List<String> steps = new ArrayList<>();
    for (int step = 0; step < 12; step++) {
      Transaction txn = randomStep(built, random, steps);
      TableState onBuilt = ManifestBuilder.build(built, txn, ctx(built.version() + 1));
      TableState onStored = ManifestBuilder.build(new TableState(built.manifest(), built.indices()), txn,
          ctx(built.version() + 1));
      assertThat(onBuilt.manifest()).as("%s", steps).isEqualTo(onStored.manifest());

      ManifestFile file = new ManifestFile(onBuilt.manifest(), onBuilt.indices(), Optional.of(txn));
      EncodedFragments encoded = onBuilt.encodeFragments(built);
      assertThat(file.encode(encoded)).as("%s", steps).isEqualTo(file.encode());
      built = onBuilt;
    }
    assertThat(steps).hasSize(12);
  }

  private static Transaction randomStep(TableState table, Random random, List<String> steps) {
    List<DataFragment> fragments = table.manifest().getFragmentsList();
    int choice = fragments.size() < 2 ? 0 : random.nextInt(5);
    long version = table.version();
    switch (choice) {
      case 1 -> {
        DataFragment target = fragments.get(random.nextInt(fragments.size()));
        steps.add("delete rows of " + target.getId());
        return delete(version, List.of(withDeletions(target, version, 1)));
      }
      case 2 -> {
        DataFragment dropped = fragments.get(random.nextInt(fragments.size()));
        steps.add("drop " + dropped.getId());
        return delete(version, List.of(), dropped.getId());
      }
      case 3 -> {
        int at = random.nextInt(fragments.size() - 1);
        steps.add("rewrite " + fragments.get(at).getId() + " and " + fragments.get(at + 1).getId());
        return rewrite(version, group(List.of(fragments.get(at), fragments.get(at + 1)),
            List.of(newFragment("r" + version, 2))));
      }
      case 4 -> {
        steps.add("reserve");
        return reserve(version, 1 + random.nextInt(3));
      }
      default -> {
        int count = 1 + random.nextInt(8);
        DataFragment[] added = new DataFragment[count];
        for (int i = 0; i < count; i++) {
          added[i] = newFragment("a" + version + "-" + i, 1);
        }
        steps.add("append " + count);
        return append(version, added);
      }
    }
  }
}
