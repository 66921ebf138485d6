package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectKeys;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;

/**
 * Where the {@link LocationRegistry} keeps its claims: one revision log per location, in a tree that mirrors the
 * location's key in the warehouse store, so that the claims at or inside a location are one prefix listing:
 *
 * <pre>
 * {warehouse}/_catalog/locations/{location key segments...}/_claims/v00000000000000000001.json
 * {warehouse}/_catalog/locations/_registry.json      written once every pre-registry table has its claim
 * </pre>
 *
 * Segments are percent-encoded like identifier parts, and a leading {@code _} is encoded too, so an encoded segment
 * never starts with {@code _}: the {@code _claims} directory and the marker cannot be mistaken for a location.
 */
final class RegistryLayout {
  static final String DIR = "locations";
  static final String CLAIMS = "_claims";
  static final String MARKER = "_registry.json";
  private static final int MAX_KEY_LENGTH = 1024;
  private static final int MAX_SEGMENT_LENGTH = 255;
  private static final int REVISION_NAME_LENGTH = CatalogLayout.revisionName(1).length();

  /** A claim revision found by listing: the location key it is for, and its revision. */
  record Located(String locationKey, long revision) {}

  private final String base;

  RegistryLayout(String catalogBase) {
    this.base = ObjectKeys.join(catalogBase, DIR);
  }

  String marker() {
    return ObjectKeys.join(base, MARKER);
  }

  /** The prefix under which the claims at and inside {@code locationKey} live. */
  String locationDir(String locationKey) {
    StringBuilder dir = new StringBuilder(base);
    for (String segment : locationKey.split("/", -1)) {
      String encoded = encodeSegment(segment);
      if (encoded.length() > MAX_SEGMENT_LENGTH) {
        throw tooLong(locationKey);
      }
      dir.append('/').append(encoded);
    }
    return dir.toString();
  }

  /** The revision log of the claims of {@code locationKey}. */
  String claimDir(String locationKey) {
    String dir = ObjectKeys.join(locationDir(locationKey), CLAIMS);
    if (dir.length() + 1 + REVISION_NAME_LENGTH > MAX_KEY_LENGTH) {
      throw tooLong(locationKey);
    }
    return dir;
  }

  /** Which location and claim revision a key under {@link #base} belongs to; empty for anything else. */
  Optional<Located> locate(String key) {
    String prefix = base + "/";
    if (!key.startsWith(prefix)) {
      return Optional.empty();
    }
    String[] segments = key.substring(prefix.length()).split("/", -1);
    int n = segments.length;
    if (n < 3 || !segments[n - 2].equals(CLAIMS)) {
      return Optional.empty();
    }
    OptionalLong revision = CatalogLayout.parseRevision(segments[n - 1]);
    if (revision.isEmpty()) {
      return Optional.empty();
    }
    List<String> decoded = new ArrayList<>();
    for (int i = 0; i < n - 2; i++) {
      if (segments[i].isEmpty() || segments[i].startsWith("_")) {
        return Optional.empty();
      }
      try {
        decoded.add(decodeSegment(segments[i]));
      } catch (IllegalArgumentException malformed) {
        return Optional.empty();
      }
    }
    return Optional.of(new Located(String.join("/", decoded), revision.getAsLong()));
  }

  /** The directories containing {@code locationKey}, nearest first ({@code a/b/c}: {@code a/b}, {@code a}). */
  static List<String> ancestors(String locationKey) {
    List<String> out = new ArrayList<>();
    for (int slash = locationKey.lastIndexOf('/'); slash > 0; slash = locationKey.lastIndexOf('/', slash - 1)) {
      out.add(locationKey.substring(0, slash));
    }
    return out;
  }

  private static InvalidCatalogInputException tooLong(String locationKey) {
    return new InvalidCatalogInputException("Location key '" + locationKey + "' is too long for the catalog's "
        + "location registry (its registry key would exceed " + MAX_KEY_LENGTH + " bytes or a segment "
        + MAX_SEGMENT_LENGTH + " bytes)");
  }

  /** Percent-encoded as an identifier part ({@link Identifiers#encode}), with a leading {@code _} encoded too. */
  static String encodeSegment(String segment) {
    String encoded = Identifiers.encode(List.of(segment));
    return encoded.startsWith("_") ? "%5F" + encoded.substring(1) : encoded;
  }

  static String decodeSegment(String encoded) {
    return Identifiers.decode(encoded).get(0);
  }
}
