package dev.lancecommit.chaos.harness;

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
 * This JVM's class path as an explicit list for a child JVM. Under surefire (and {@code java -jar}) the class path
 * is one manifest-only jar; the entries of its {@code Class-Path} attribute are listed instead.
 */
public final class JvmClasspath {
  private JvmClasspath() {}

  public static String current() {
    Set<String> entries = new LinkedHashSet<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (entry.isBlank()) {
        continue;
      }
      Path path = Path.of(entry).toAbsolutePath().normalize();
      entries.add(path.toString());
      if (Files.isRegularFile(path) && path.getFileName().toString().endsWith(".jar")) {
        entries.addAll(manifestEntries(path));
      }
    }
    return String.join(File.pathSeparator, entries);
  }

  private static List<String> manifestEntries(Path jar) {
    String classPath;
    try (JarFile file = new JarFile(jar.toFile())) {
      Manifest manifest = file.getManifest();
      classPath = manifest == null ? null : manifest.getMainAttributes().getValue(Attributes.Name.CLASS_PATH);
    } catch (IOException e) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    if (classPath == null || classPath.isBlank()) {
      return out;
    }
    URI base = jar.getParent().toUri();
    for (String token : classPath.trim().split("\\s+")) {
      try {
        URI resolved = base.resolve(token);
        if ("file".equals(resolved.getScheme())) {
          out.add(Path.of(resolved).toString());
        }
      } catch (IllegalArgumentException e) {
        // not a usable entry
      }
    }
    return out;
  }
}
