package dev.lancecommit.coordinator.namespace;

/** DropNamespace's {@code behavior}: what to do with what the namespace holds. */
public enum DropBehavior {
  /** Refuse to drop a namespace that holds tables or namespaces. The default. */
  RESTRICT,
  /**
   * Drop child namespaces and deregister every table below the namespace first. Table data is never deleted by a
   * namespace drop: the tables can be registered again.
   */
  CASCADE;

  /** Parses a spec behavior string; {@code null} means the default, {@link #RESTRICT}. */
  public static DropBehavior parse(String behavior) {
    if (behavior == null) {
      return RESTRICT;
    }
    switch (Modes.normalize(behavior)) {
      case "restrict":
        return RESTRICT;
      case "cascade":
        return CASCADE;
      default:
        throw new InvalidCatalogInputException("Unknown behavior '" + behavior + "': expected Restrict or Cascade");
    }
  }
}
