package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.testing.PythonClients;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * README.md shows the clients' examples exactly as the files the tests run: the lines between
 * {@code README-BEGIN <lang>} and {@code README-END <lang>} of JavaQuickstart.java and quickstart.py, dedented, must
 * appear in README.md as one block.
 */
class ReadmeSnippetsTest {
  private static final Path ROOT = PythonClients.repositoryRoot();

  @Test
  void theJavaExampleInTheReadmeIsTheOneJavaQuickstartTestRuns() throws IOException {
    String snippet = snippet(ROOT.resolve("clients/examples/src/main/java/dev/lancecommit/examples/JavaQuickstart.java"),
        "java");
    assertThat(snippet).contains("client.createTable(orders, fragments, schema)").contains("client.delete(orders");
    assertThat(readme()).as("README.md must contain the Java example of JavaQuickstart.java verbatim:\n%s", snippet)
        .contains(snippet);
  }

  @Test
  void thePythonExampleInTheReadmeIsTheOneTestQuickstartRuns() throws IOException {
    String snippet = snippet(ROOT.resolve("clients/python/examples/quickstart.py"), "python");
    assertThat(snippet).contains("client.create_table(").contains("client.delete(");
    assertThat(readme()).as("README.md must contain the Python example of quickstart.py verbatim:\n%s", snippet)
        .contains(snippet);
  }

  private static String readme() throws IOException {
    return Files.readString(ROOT.resolve("README.md"), StandardCharsets.UTF_8);
  }

  /** The marked lines, with their common indentation removed, joined with newlines. */
  static String snippet(Path file, String language) throws IOException {
    List<String> lines = Files.readAllLines(file, StandardCharsets.UTF_8);
    List<String> out = new ArrayList<>();
    boolean inside = false;
    for (String line : lines) {
      if (line.strip().endsWith("README-END " + language)) {
        inside = false;
      } else if (inside) {
        out.add(line);
      } else if (line.strip().endsWith("README-BEGIN " + language)) {
        inside = true;
      }
    }
    assertThat(out).as("README markers for %s in %s", language, file).isNotEmpty();
    int indent = out.stream().filter(l -> !l.isBlank()).mapToInt(l -> l.length() - l.stripLeading().length()).min()
        .orElse(0);
    return String.join("\n", out.stream().map(l -> l.isBlank() ? "" : l.substring(indent)).toList());
  }
}
