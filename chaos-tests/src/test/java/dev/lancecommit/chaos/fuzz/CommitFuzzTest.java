package dev.lancecommit.chaos.fuzz;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.storage.ObjectStores;
import java.nio.file.Path;
import java.security.SecureRandom;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 14's fuzz suite, part of the test command: a real coordinator (local warehouse, no Kafka) gets real Lance
 * transactions, {@value #DEFAULT_STEPS} random steps of mutated copies of them (protobuf and JSON), odd table ids and
 * headers, bodies over the limit and cut short. Invariants: no answer is a 5xx other than 503; the service still
 * answers and commits afterwards; every version of every table opens and scans completely in stock Lance; the rows of
 * every version are exactly what the acknowledged commits put there; the coordinator's own verify finds nothing.
 *
 * <p>Seeded: {@code -Dfuzz.seed=N} replays a run (the seed is printed, and named in every failure); {@code
 * -Dfuzz.steps=N} changes its length.
 */
class CommitFuzzTest {
  static final int DEFAULT_STEPS = 1500;
  private static final long MAX_BODY_BYTES = 1 << 20;

  @TempDir Path work;

  @Test
  void noMutantOrOddRequestPoisonsATableOrTakesTheServiceDown() throws Exception {
    long seed = Long.getLong("fuzz.seed", new SecureRandom().nextLong());
    int steps = Integer.getInteger("fuzz.steps", DEFAULT_STEPS);
    System.out.println("CommitFuzzTest: seed " + seed + ", " + steps + " steps (replay with -Dfuzz.seed=" + seed + ")");
    CoordinatorConfig config = CoordinatorConfig.builder()
        .port(0)
        .warehouse(work.resolve("warehouse").toString())
        .kafka("none")
        .set(CoordinatorConfig.HTTP_MAX_BODY_BYTES, Long.toString(MAX_BODY_BYTES))
        .build();
    try (Coordinator coordinator = Coordinator.start(config);
        ObjectStores stores = new ObjectStores(config.s3Config());
        FuzzRun run = new FuzzRun(seed, coordinator.restUrl(), MAX_BODY_BYTES)) {
      run.createTables(2, stores);
      run.run(steps);
      run.checkStillServing();
      run.checkTables();
      System.out.println("CommitFuzzTest: seed " + seed + ", answers " + run.statuses() + ", "
          + run.versionsChecked() + " versions scanned");
      assertThat(run.violations()).as("fuzz seed %s (replay with -Dfuzz.seed=%s)", seed, seed).isEmpty();
    }
  }
}
