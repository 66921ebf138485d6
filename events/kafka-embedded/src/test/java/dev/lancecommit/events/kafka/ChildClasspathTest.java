package dev.lancecommit.events.kafka;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ChildClasspathTest {
  @TempDir Path dir;

  @Test
  void expandsManifestClassPathRelativeToTheJar() throws IOException {
    Path lib = Files.createDirectories(dir.resolve("app/lib"));
    Path a = emptyJar(lib.resolve("a.jar"), null);
    Path spaced = emptyJar(lib.resolve("b c.jar"), null);
    Path app = emptyJar(dir.resolve("app/coordinator.jar"), "lib/a.jar lib/b%20c.jar lib/missing.jar");

    List<Path> resolved = ChildClasspath.resolve(app.toString());

    assertThat(resolved).containsExactly(app, a, spaced);
  }

  @Test
  void keepsPlainEntriesInOrderWithoutDuplicates() throws IOException {
    Path classes = Files.createDirectories(dir.resolve("classes"));
    Path x = emptyJar(dir.resolve("x.jar"), null);
    Path bundle = emptyJar(dir.resolve("bundle.jar"), x.toUri().toString());

    List<Path> resolved =
        ChildClasspath.resolve(String.join(File.pathSeparator, classes.toString(), bundle.toString(), x.toString()));

    assertThat(resolved).containsExactly(classes, bundle, x);
  }

  @Test
  void thisJvmsClasspathReachesTheKafkaBrokerClasses() {
    // Under surefire java.class.path may be a manifest-only booter jar; the broker classes must still be found.
    List<Path> resolved = ChildClasspath.resolve(System.getProperty("java.class.path"));

    assertThat(resolved).anyMatch(p -> p.getFileName().toString().startsWith("kafka_2.13-"));
    assertThat(resolved).anyMatch(p -> p.getFileName().toString().startsWith("kafka-clients-"));
  }

  private static Path emptyJar(Path path, String classPath) throws IOException {
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    if (classPath != null) {
      manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, classPath);
    }
    try (OutputStream out = Files.newOutputStream(path);
        JarOutputStream jar = new JarOutputStream(out, manifest)) {
      jar.flush();
    }
    return path.toAbsolutePath().normalize();
  }
}
