package dev.lancecommit.events.kafka;

import java.io.File;
import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.jar.Attributes;
import java.util.jar.JarFile;
import java.util.jar.Manifest;

/**
 * The classpath for a child JVM running classes of this JVM's classpath.
 *
 * <p>{@code java.class.path} is a single manifest-only jar both for {@code java -jar coordinator.jar} (manifest
 * {@code Class-Path: lib/a.jar ...}) and under Maven surefire's default booter jar. Jar entries that carry a {@code
 * Class-Path} manifest attribute are expanded into the entries it names (resolved against the jar's directory, as the
 * JVM does), so the child gets an explicit list.
 */
final class ChildClasspath {
  private ChildClasspath() {}

  static List<Path> resolve(String classPath) {
    Set<Path> result = new LinkedHashSet<>();
    for (String entry : classPath.split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry).toAbsolutePath().normalize();
      result.add(path);
      if (Files.isRegularFile(path) && path.getFileName().toString().endsWith(".jar")) {
        result.addAll(manifestClassPath(path));
      }
    }
    return new ArrayList<>(result);
  }

  static List<Path> manifestClassPath(Path jar) {
    String classPath;
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
    } catch (IOException e) {
      return List.of();
    }
    if (classPath == null || classPath.isBlank()) {
      return List.of();
    }
    URI base = jar.getParent().toUri();
    List<Path> entries = new ArrayList<>();
    for (String token : classPath.trim().split("\\s+")) {
      try {
        URI resolved = base.resolve(token);
        if (!"file".equals(resolved.getScheme())) {
          continue;
        }
        Path path = Path.of(resolved).normalize();
        if (Files.exists(path)) {
          entries.add(path);
        }
      } catch (IllegalArgumentException e) {
        // an entry the JVM would not load either
      }
    }
    return entries;
  }
}
