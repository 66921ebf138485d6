package dev.lancecommit.coordinator.namespace;

/** RegisterTable's {@code mode}: what to do when a table with this id is already catalogued. */
public enum RegisterMode {
  /** Fail with 409. The default. */
  CREATE,
  /** Replace the existing registration (or declaration) with the new one. */
  OVERWRITE;

  /** Parses a spec mode string; {@code null} means the default, {@link #CREATE}. */
  public static RegisterMode parse(String mode) {
    if (mode == null) {
      return CREATE;
    }
    switch (Modes.normalize(mode)) {
      case "create":
        return CREATE;
      case "overwrite":
        return OVERWRITE;
      default:
        throw new InvalidCatalogInputException("Unknown mode '" + mode + "': expected Create or Overwrite");
    }
  }
}
