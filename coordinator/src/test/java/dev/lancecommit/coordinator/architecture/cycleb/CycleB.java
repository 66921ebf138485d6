package dev.lancecommit.coordinator.architecture.cycleb;

import dev.lancecommit.coordinator.architecture.cyclea.CycleA;

/** Half of a package cycle, for the test that proves cycles are found. */
public final class CycleB {
  public CycleA other() {
    return null;
  }
}
