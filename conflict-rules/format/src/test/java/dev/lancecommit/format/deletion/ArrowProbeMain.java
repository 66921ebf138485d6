package dev.lancecommit.format.deletion;

/** Run in a child JVM by {@link DeletionVectorsTest}: prints what {@link DeletionVectors#checkArrowAvailable} says. */
public final class ArrowProbeMain {
  private ArrowProbeMain() {}

  public static void main(String[] args) {
    try {
      DeletionVectors.checkArrowAvailable();
      System.out.println("AVAILABLE");
    } catch (IllegalStateException e) {
      System.out.println("UNAVAILABLE: " + e.getMessage());
    }
  }
}
