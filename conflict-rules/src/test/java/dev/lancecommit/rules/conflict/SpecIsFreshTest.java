package dev.lancecommit.rules.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/**
 * SPEC.md must be what SpecWriter renders from the matrix the code runs. Run with -Dspec.regenerate=true to write
 * it instead (see SpecWriter.REGENERATE_COMMAND).
 */
class SpecIsFreshTest {
  /** Surefire runs tests in the module directory. */
  private static final Path SPEC = Path.of("SPEC.md");

  @Test
  void specMatchesTheMatrix() throws IOException {
    String rendered = SpecWriter.render(ConflictMatrix.standard());
    if (Boolean.getBoolean("spec.regenerate")) {
      Files.writeString(SPEC, rendered, StandardCharsets.UTF_8);
    }
    assertThat(Files.exists(SPEC))
        .as("conflict-rules/SPEC.md is missing; regenerate it with: " + SpecWriter.REGENERATE_COMMAND)
        .isTrue();
    String onDisk = Files.readString(SPEC, StandardCharsets.UTF_8);
    assertThat(onDisk.equals(rendered))
        .as("conflict-rules/SPEC.md is stale: it differs from what the ConflictMatrix renders. Regenerate it with: "
            + SpecWriter.REGENERATE_COMMAND + "  (or: " + SpecWriter.REGENERATE_COMMAND_JAVA + ")")
        .isTrue();
  }

  @Test
  void specShowsEveryCellAndCondition() {
    String rendered = SpecWriter.render(ConflictMatrix.standard());
    assertThat(rendered).contains("| **Update** | p1 | du | X | C | o1 | R | X | C | p1+du | n1 | C | o1 | m1/w1 | C | C"
        + " | R | R |");
    for (ConflictCondition condition : ConflictMatrix.standard().conditions()) {
      assertThat(rendered).contains("### " + condition.name() + "\n\n" + condition.description());
    }
    assertThat(rendered).contains("- Cells: Ovw×UpC\n").contains("- Cells: Upd×MWS\n");
  }
}
