package dev.lancecommit.coordinator.architecture.cyclea;

import dev.lancecommit.coordinator.architecture.cycleb.CycleB;

/** Half of a package cycle, for the test that proves cycles are found. */
public final class CycleA {
  public CycleB other() {
    return null;
  }
}
