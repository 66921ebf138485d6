package dev.lancecommit.format;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Comparator;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * Names of manifest files in {@code _versions/} (lance-format.md section 1.4). Both schemes live in the same
 * directory:
 *
 * <ul>
 *   <li>V1: {@code {version}.manifest}, decimal, e.g. {@code 42.manifest};
 *   <li>V2: {@code {u64::MAX - version}} zero-padded to 20 digits + {@code .manifest}, e.g. {@code
 *       18446744073709551573.manifest}, so that a lexicographic LIST returns the newest version first.
 * </ul>
 *
 * Versions are 1 .. {@link Long#MAX_VALUE}: Lance never commits a main-line version with bit 63 set (that bit marks
 * detached versions, {@code d{version}.manifest}), and those are not versions of the table's history here.
 */
public final class ManifestNaming {
  public enum Scheme {
    V1,
    V2
  }

  /** A file name that names a main-line version. */
  public record ParsedName(long version, Scheme scheme) {}

  public static final String VERSIONS_DIR = "_versions";
  public static final String EXTENSION = ".manifest";
  /** Lance 7 creates new tables with V2 names (Rust's own default is still V1). */
  public static final Scheme DEFAULT_FOR_NEW_TABLES = Scheme.V2;

  private static final String DETACHED_PREFIX = "d";
  private static final int V2_DIGITS = 20;
  private static final int V2_NAME_LENGTH = V2_DIGITS + EXTENSION.length();

  private ManifestNaming() {}

  /** The file name (no directory) of {@code version} under {@code scheme}. */
  public static String fileName(Scheme scheme, long version) {
    if (version < 1) {
      throw new IllegalArgumentException("a manifest version must be between 1 and 2^63-1, got " + version);
    }
    return switch (scheme) {
      case V1 -> version + EXTENSION;
      case V2 -> zeroPad(Long.toUnsignedString(-1L - version)) + EXTENSION;
    };
  }

  /** {@code _versions/} + {@link #fileName}: the key of the manifest relative to the table root. */
  public static String path(Scheme scheme, long version) {
    return VERSIONS_DIR + "/" + fileName(scheme, version);
  }

  /**
   * The version named by a manifest file name, or empty for anything that is not a main-line manifest: detached
   * {@code d...} manifests, temp files ({@code .tmp_7.manifest_<uuid>}), staging copies ({@code {name}-{uuid}}),
   * {@code latest_version_hint.json}, or a number that is out of range. A path is accepted too: only the text after
   * the last {@code /} is looked at.
   */
  public static Optional<ParsedName> parse(String fileName) {
    String name = baseName(fileName);
    Optional<Scheme> scheme = detectScheme(name);
    if (scheme.isEmpty() || name.startsWith(DETACHED_PREFIX)) {
      return Optional.empty();
    }
    String digits = name.substring(0, name.length() - EXTENSION.length());
    if (digits.isEmpty() || !digits.chars().allMatch(c -> c >= '0' && c <= '9')) {
      return Optional.empty();
    }
    long number;
    try {
      number = Long.parseUnsignedLong(digits);
    } catch (NumberFormatException e) {
      return Optional.empty(); // more than u64
    }
    long version = scheme.get() == Scheme.V2 ? -1L - number : number;
    if (version < 1) {
      return Optional.empty(); // bit 63 set (detached range) or 0
    }
    return Optional.of(new ParsedName(version, scheme.get()));
  }

  /**
   * The scheme a file name belongs to, as Lance decides it: {@code d...} is V2 (detached versions need V2), a
   * {@code *.manifest} name of exactly 29 characters is V2, any other {@code *.manifest} is V1, anything else none.
   */
  public static Optional<Scheme> detectScheme(String fileName) {
    String name = baseName(fileName);
    if (name.startsWith(DETACHED_PREFIX) && name.endsWith(EXTENSION)) {
      return Optional.of(Scheme.V2);
    }
    if (!name.endsWith(EXTENSION)) {
      return Optional.empty();
    }
    return Optional.of(name.length() == V2_NAME_LENGTH ? Scheme.V2 : Scheme.V1);
  }

  /**
   * The scheme of a {@code _versions/} listing.
   *
   * @throws CorruptManifestException if the listing mixes V1 and V2 names (Lance refuses such a table too)
   * @throws IllegalArgumentException if the listing holds no manifest name at all
   */
  public static Scheme schemeOf(Collection<String> names) {
    return detectSchemeOf(names)
        .orElseThrow(() -> new IllegalArgumentException("the listing holds no manifest file name"));
  }

  /** Like {@link #schemeOf(Collection)}, but {@code whenEmpty} for a listing without manifests (a new table). */
  public static Scheme schemeOf(Collection<String> names, Scheme whenEmpty) {
    return detectSchemeOf(names).orElse(whenEmpty);
  }

  private static Optional<Scheme> detectSchemeOf(Collection<String> names) {
    Set<Scheme> seen = EnumSet.noneOf(Scheme.class);
    for (String name : names) {
      detectScheme(name).ifPresent(seen::add);
    }
    if (seen.size() > 1) {
      throw new CorruptManifestException(
          "_versions/ mixes V1 and V2 manifest names (Found V2 manifest in a V1 manifest directory)");
    }
    return seen.stream().findFirst();
  }

  /**
   * Every main-line version named in a {@code _versions/} listing, oldest first; other entries are skipped.
   *
   * @throws CorruptManifestException if the listing mixes V1 and V2 names, or names one version twice
   */
  public static List<ParsedName> versions(Collection<String> names) {
    detectSchemeOf(names);
    List<ParsedName> parsed = new ArrayList<>();
    for (String name : names) {
      parse(name).ifPresent(parsed::add);
    }
    parsed.sort(Comparator.comparingLong(ParsedName::version));
    for (int i = 1; i < parsed.size(); i++) {
      if (parsed.get(i).version() == parsed.get(i - 1).version()) {
        throw new CorruptManifestException(
            "_versions/ names version " + parsed.get(i).version() + " more than once");
      }
    }
    return List.copyOf(parsed);
  }

  /**
   * The newest main-line version in a {@code _versions/} listing, empty if there is none.
   *
   * @throws CorruptManifestException if the listing mixes V1 and V2 names
   */
  public static OptionalLong latest(Collection<String> names) {
    detectSchemeOf(names);
    OptionalLong max = OptionalLong.empty();
    for (String name : names) {
      Optional<ParsedName> p = parse(name);
      if (p.isPresent() && (max.isEmpty() || p.get().version() > max.getAsLong())) {
        max = OptionalLong.of(p.get().version());
      }
    }
    return max;
  }

  private static String baseName(String fileName) {
    int slash = fileName.lastIndexOf('/');
    return slash < 0 ? fileName : fileName.substring(slash + 1);
  }

  private static String zeroPad(String digits) {
    return "0".repeat(V2_DIGITS - digits.length()) + digits;
  }
}
