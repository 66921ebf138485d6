package dev.lancecommit.coordinator.namespace;

/** DropNamespace's {@code mode}: what to do when the namespace does not exist. */
public enum DropMode {
  /** Answer NamespaceNotFound. The default. */
  FAIL,
  /** Succeed without doing anything. */
  SKIP;

  /** Parses a spec mode string; {@code null} means the default, {@link #FAIL}. */
  public static DropMode parse(String mode) {
    if (mode == null) {
      return FAIL;
    }
    switch (Modes.normalize(mode)) {
      case "fail":
        return FAIL;
      case "skip":
        return SKIP;
      default:
        throw new InvalidCatalogInputException("Unknown mode '" + mode + "': expected Fail or Skip");
    }
  }
}
