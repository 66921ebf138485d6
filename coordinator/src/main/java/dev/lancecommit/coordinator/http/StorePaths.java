package dev.lancecommit.coordinator.http;

import dev.lancecommit.format.ManifestNaming;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * Manifest paths as the namespace's version operations exchange them. Lance's namespace-managed commit handler parses
 * {@code manifest_path} as an object_store path, relative to the root of the table's store: the key below the bucket
 * for {@code s3://}, the file system path for local tables (a leading slash is tolerated). A full {@code s3://} URI
 * does not parse there, so the version operations answer with store paths.
 */
final class StorePaths {
  private static final String S3 = "s3://";
  private static final String MANIFEST_SUFFIX = ManifestNaming.EXTENSION + "-";
  private static final Pattern STAGING_SUFFIX = Pattern.compile("[A-Za-z0-9][A-Za-z0-9_-]{0,127}");

  private StorePaths() {}

  /** The store path of an object given by its URI: {@code s3://bucket/key} gives {@code key}, a local path itself. */
  static String of(String uri) {
    if (uri.startsWith(S3)) {
      int slash = uri.indexOf('/', S3.length());
      return slash < 0 ? "" : uri.substring(slash + 1);
    }
    if (uri.startsWith("file:")) {
      try {
        return Path.of(new URI(uri)).toString();
      } catch (URISyntaxException | IllegalArgumentException e) {
        throw ApiException.invalidInput("Not a valid file URI: '" + uri + "'");
      }
    }
    return uri;
  }

  /**
   * The name of the manifest a client staged for {@code version} of the table at {@code tableLocation}, from the
   * {@code manifest_path} of a CreateTableVersion request: it must lie directly in the table's {@code _versions/}
   * and be named as Lance names staged manifests, {@code {final manifest name of version}-{suffix}}. Anything else,
   * in particular a final manifest name, is refused (400/13): the coordinator deletes the staged file once it has
   * committed.
   */
  static StagedName stagedManifestName(String tableLocation, String manifestPath, long version) {
    String tablePath = trimSlashes(of(tableLocation));
    String given = manifestPath;
    if (given.startsWith(S3) || given.startsWith("file:")) {
      String tableUri = tableLocation.startsWith("/") ? "file://" + tableLocation : tableLocation;
      if (!given.startsWith(tableUri + "/") && !given.startsWith(tableLocation + "/")) {
        throw notStaged(manifestPath, "it is not inside the table at " + tableLocation);
      }
    }
    String path = trimSlashes(of(given));
    String versionsDir = tablePath + "/" + ManifestNaming.VERSIONS_DIR + "/";
    if (!path.startsWith(versionsDir)) {
      throw notStaged(manifestPath, "it is not in the table's " + ManifestNaming.VERSIONS_DIR + "/ directory ("
          + versionsDir + ")");
    }
    String name = path.substring(versionsDir.length());
    int cut = name.lastIndexOf(MANIFEST_SUFFIX);
    if (name.indexOf('/') >= 0 || cut < 0) {
      throw notStaged(manifestPath, "a staged manifest is named {final manifest name}-{uuid}");
    }
    String finalName = name.substring(0, cut + ManifestNaming.EXTENSION.length());
    String suffix = name.substring(cut + MANIFEST_SUFFIX.length());
    Optional<ManifestNaming.ParsedName> parsed = ManifestNaming.parse(finalName);
    if (parsed.isEmpty() || !STAGING_SUFFIX.matcher(suffix).matches()) {
      throw notStaged(manifestPath, "a staged manifest is named {final manifest name}-{uuid}");
    }
    if (parsed.get().version() != version) {
      throw ApiException.invalidInput("Staged manifest does not match the version",
          "'" + manifestPath + "' is staged for version " + parsed.get().version() + ", the request creates version "
              + version);
    }
    return new StagedName(name, parsed.get().scheme());
  }

  /** A staged manifest's file name in {@code _versions/} and the naming scheme of the final name it carries. */
  record StagedName(String name, ManifestNaming.Scheme scheme) {}

  private static String trimSlashes(String path) {
    int start = 0;
    int end = path.length();
    while (start < end && path.charAt(start) == '/') {
      start++;
    }
    while (end > start && path.charAt(end - 1) == '/') {
      end--;
    }
    return path.substring(start, end);
  }

  private static ApiException notStaged(String manifestPath, String why) {
    return ApiException.invalidInput("Field 'manifest_path' does not name a staged manifest of this table",
        "'" + manifestPath + "' cannot be committed: " + why);
  }
}
