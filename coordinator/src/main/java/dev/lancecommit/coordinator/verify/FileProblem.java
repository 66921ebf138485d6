package dev.lancecommit.coordinator.verify;

/**
 * What is wrong with one file a version names.
 *
 * @param what what the version calls the file ("data file x.lance of fragment 3")
 * @param uri where the file should be
 * @param reason what is wrong, phrased to follow the URI ("is not there", "has 10 bytes, but ...")
 */
public record FileProblem(String what, String uri, String reason) {
  public String message() {
    return what + ": " + uri + " " + reason;
  }

  @Override
  public String toString() {
    return message();
  }
}
