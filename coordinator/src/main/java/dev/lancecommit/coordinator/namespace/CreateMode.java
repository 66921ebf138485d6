package dev.lancecommit.coordinator.namespace;

/** CreateNamespace's {@code mode}: what to do when the namespace already exists. */
public enum CreateMode {
  /** Fail with 409. The default. */
  CREATE,
  /** Keep the existing namespace and succeed. */
  EXIST_OK,
  /** Replace the existing namespace's properties; refused if it holds tables or child namespaces. */
  OVERWRITE;

  /** Parses a spec mode string; {@code null} means the default, {@link #CREATE}. */
  public static CreateMode parse(String mode) {
    if (mode == null) {
      return CREATE;
    }
    switch (Modes.normalize(mode)) {
      case "create":
        return CREATE;
      case "existok":
        return EXIST_OK;
      case "overwrite":
        return OVERWRITE;
      default:
        throw new InvalidCatalogInputException(
            "Unknown mode '" + mode + "': expected Create, ExistOk or Overwrite");
    }
  }
}
