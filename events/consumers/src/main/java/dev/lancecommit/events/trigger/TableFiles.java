package dev.lancecommit.events.trigger;

import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.NoSuchFileException;
import java.nio.file.Path;
import java.util.List;
import java.util.OptionalLong;
import java.util.stream.Stream;

/**
 * Reads a table's manifests from storage with the format codec: lists {@code _versions/}, picks the newest version
 * with {@link ManifestNaming}, decodes it with {@link ManifestFile}. Local tables only (an absolute path or a
 * {@code file:} URI, as the coordinator records a local warehouse); object-store tables are refused with a clear
 * message.
 */
public final class TableFiles {
  private final Path root;

  private TableFiles(Path root) {
    this.root = root;
  }

  /** The table at {@code location}, as the commit event names it. */
  public static TableFiles at(String location) {
    if (location.startsWith("file:")) {
      return new TableFiles(Path.of(URI.create(location)));
    }
    if (location.contains("://")) {
      throw new UnsupportedOperationException("the trigger consumer reads manifests of local tables only; "
          + location + " is on an object store");
    }
    return new TableFiles(Path.of(location));
  }

  public Path root() {
    return root;
  }

  /** The newest main-line version listed in {@code _versions/}, empty when there is none. */
  public OptionalLong latestVersion() {
    return ManifestNaming.latest(listVersions());
  }

  /** The manifest of the newest version. */
  public ManifestFile latestManifest() {
    List<String> names = listVersions();
    long version = ManifestNaming.latest(names).orElseThrow(
        () -> new IllegalStateException("table " + root + " has no version yet"));
    ManifestNaming.Scheme scheme = ManifestNaming.schemeOf(names);
    Path file = root.resolve(ManifestNaming.path(scheme, version));
    try {
      return ManifestFile.decode(Files.readAllBytes(file));
    } catch (IOException e) {
      throw new UncheckedIOException("could not read " + file + ": " + e.getMessage(), e);
    }
  }

  private List<String> listVersions() {
    Path dir = root.resolve(ManifestNaming.VERSIONS_DIR);
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).toList();
    } catch (NoSuchFileException e) {
      return List.of();
    } catch (IOException e) {
      throw new UncheckedIOException("could not list " + dir + ": " + e.getMessage(), e);
    }
  }
}
