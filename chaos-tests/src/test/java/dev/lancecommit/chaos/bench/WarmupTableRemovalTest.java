package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** No warm-up run's tables are removed between the last warm-up run and the measured window. */
class WarmupTableRemovalTest {
  private final List<String> removed = new ArrayList<>();
  private final WarmupTableRemoval removal = new WarmupTableRemoval(removed::add);

  @Test
  void eachWarmUpRunsTablesGoAtTheEndOfTheRunAfterItButNothingGoesAtTheEndOfTheLast() {
    removal.warmupEnded("warmup1", false);
    assertThat(removed).isEmpty();
    removal.warmupEnded("warmup2", false);
    assertThat(removed).containsExactly("warmup1");
    removal.warmupEnded("warmup3", false);
    assertThat(removed).containsExactly("warmup1", "warmup2");
    removal.warmupEnded("warmup4", true);
    assertThat(removed).as("nothing removed right before the window").containsExactly("warmup1", "warmup2");

    removal.measuredEnded();
    assertThat(removed).containsExactly("warmup1", "warmup2", "warmup3", "warmup4");
  }

  @Test
  void aSingleWarmUpRunKeepsItsTablesUntilTheMeasuredRunHasEnded() {
    removal.warmupEnded("warmup1", true);
    assertThat(removed).isEmpty();
    removal.measuredEnded();
    assertThat(removed).containsExactly("warmup1");
  }

  @Test
  void withoutAWarmUpNothingIsRemoved() {
    removal.measuredEnded();
    assertThat(removed).isEmpty();
  }
}
