package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where catalog entries live in the warehouse. Every namespace and table is a directory of immutable revisions,
 * {@code v{revision, 20 digits}.json}, created with put-if-absent; the highest revision is the entry's state:
 *
 * <pre>
 * {warehouse}/_catalog/tree/{parent parts...}/_namespaces/{name}/v00000000000000000001.json   namespace parent$name
 * {warehouse}/_catalog/tree/{namespace parts...}/_tables/{name}/v00000000000000000001.json    table namespace$name
 * </pre>
 *
 * Parts are percent-encoded ({@link Identifiers#encode}). An encoded part never starts with {@code _}, so the
 * {@code _namespaces} and {@code _tables} segments cannot be mistaken for a child namespace, and one recursive
 * listing of {@code .../_tables/} yields exactly the revisions of the tables directly in a namespace.
 */
final class CatalogLayout {
  static final String TREE = "tree";
  static final String NAMESPACES = "_namespaces";
  static final String TABLES = "_tables";
  private static final String REVISION_PREFIX = "v";
  private static final String REVISION_SUFFIX = ".json";
  private static final int REVISION_DIGITS = 20;
  private static final int REVISION_NAME_LENGTH =
      REVISION_PREFIX.length() + REVISION_DIGITS + REVISION_SUFFIX.length();
  /** S3 keys are at most 1024 bytes. */
  private static final int MAX_KEY_LENGTH = 1024;

  enum Kind { NAMESPACE, TABLE }

  /** A revision key found by listing: whose revision it is. */
  record Located(Kind kind, List<String> id, long revision) {}

  private final String treeBase;

  CatalogLayout(String catalogBase) {
    this.treeBase = ObjectKeys.join(catalogBase, TREE);
  }

  String treeBase() {
    return treeBase;
  }

  /** The revision directory of a (non-root) namespace. */
  String namespaceDir(List<String> id) {
    return entryDir(id, NAMESPACES);
  }

  /** The revision directory of a table. */
  String tableDir(List<String> id) {
    return entryDir(id, TABLES);
  }

  /** The directory whose subdirectories are the child namespaces of {@code parent}. */
  String namespacesIn(List<String> parent) {
    return ObjectKeys.join(base(parent), NAMESPACES);
  }

  /** The directory whose subdirectories are the tables directly in {@code namespace}. */
  String tablesIn(List<String> namespace) {
    return ObjectKeys.join(base(namespace), TABLES);
  }

  static String revisionKey(String dir, long revision) {
    return ObjectKeys.join(dir, revisionName(revision));
  }

  static String revisionName(long revision) {
    if (revision < 1) {
      throw new IllegalArgumentException("revisions start at 1, got " + revision);
    }
    String digits = Long.toString(revision);
    return REVISION_PREFIX + "0".repeat(REVISION_DIGITS - digits.length()) + digits + REVISION_SUFFIX;
  }

  /** The revision a file name in an entry directory stands for; anything else is ignored. */
  static OptionalLong parseRevision(String name) {
    if (name.length() != REVISION_NAME_LENGTH || !name.startsWith(REVISION_PREFIX)
        || !name.endsWith(REVISION_SUFFIX)) {
      return OptionalLong.empty();
    }
    String digits = name.substring(REVISION_PREFIX.length(), REVISION_PREFIX.length() + REVISION_DIGITS);
    if (!digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return OptionalLong.empty();
    }
    try {
      long revision = Long.parseLong(digits);
      return revision >= 1 ? OptionalLong.of(revision) : OptionalLong.empty();
    } catch (NumberFormatException tooLarge) {
      return OptionalLong.empty();
    }
  }

  /** Which entry and revision a key under {@link #treeBase()} belongs to; empty for anything else. */
  Optional<Located> locate(String key) {
    String prefix = treeBase + "/";
    if (!key.startsWith(prefix)) {
      return Optional.empty();
    }
    String[] segments = key.substring(prefix.length()).split("/", -1);
    int n = segments.length;
    if (n < 3) {
      return Optional.empty();
    }
    OptionalLong revision = parseRevision(segments[n - 1]);
    Kind kind = switch (segments[n - 3]) {
      case NAMESPACES -> Kind.NAMESPACE;
      case TABLES -> Kind.TABLE;
      default -> null;
    };
    if (revision.isEmpty() || kind == null) {
      return Optional.empty();
    }
    List<String> encoded = new ArrayList<>(List.of(segments).subList(0, n - 3));
    encoded.add(segments[n - 2]);
    if (encoded.stream().anyMatch(s -> s.isEmpty() || s.startsWith("_"))) {
      return Optional.empty();
    }
    try {
      return Optional.of(new Located(kind, Identifiers.decode(String.join("/", encoded)), revision.getAsLong()));
    } catch (IllegalArgumentException malformed) {
      return Optional.empty();
    }
  }

  private String base(List<String> namespace) {
    return namespace.isEmpty() ? treeBase : ObjectKeys.join(treeBase, Identifiers.encode(namespace));
  }

  private String entryDir(List<String> id, String kindSegment) {
    if (id.isEmpty()) {
      throw new IllegalArgumentException("the root namespace has no entry");
    }
    List<String> parent = id.subList(0, id.size() - 1);
    String dir = ObjectKeys.join(ObjectKeys.join(base(parent), kindSegment),
        Identifiers.encode(List.of(id.get(id.size() - 1))));
    if (dir.length() + 1 + REVISION_NAME_LENGTH > MAX_KEY_LENGTH) {
      throw new InvalidCatalogInputException("Identifier " + Identifiers.display(id)
          + " is too long: its catalog key would exceed " + MAX_KEY_LENGTH + " bytes");
    }
    return dir;
  }
}
