package dev.lancecommit.chaos.harness;

import dev.lancecommit.coordinator.Main;
import java.util.Arrays;

/**
 * Entry point of the coordinator process the harness starts: {@code CoordinatorChild <harness pid> <coordinator
 * options...>}. Runs {@link Main} and halts as soon as the harness process is gone, so a harness that is itself
 * killed leaves no coordinator behind.
 */
public final class CoordinatorChild {
  private CoordinatorChild() {}

  public static void main(String[] args) throws Exception {
    if (args.length < 1) {
      System.err.println("usage: CoordinatorChild <parent pid> [coordinator options]");
      System.exit(2);
    }
    long parentPid = Long.parseLong(args[0]);
    ProcessHandle.of(parentPid).ifPresentOrElse(
        parent -> parent.onExit().thenRun(() -> Runtime.getRuntime().halt(3)),
        () -> Runtime.getRuntime().halt(3));
    Main.main(Arrays.copyOfRange(args, 1, args.length));
  }
}
