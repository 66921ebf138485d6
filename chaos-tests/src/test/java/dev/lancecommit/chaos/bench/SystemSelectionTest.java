package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import org.junit.jupiter.api.Test;

/** {@code --systems} selects by the names the report gives, commas separating them. */
class SystemSelectionTest {

  @Test
  void aSystemWhoseNameHoldsACommaIsSelectedByItsNameWithoutTheComma() {
    BenchOptions options = options(" Namespace appends_on_latest ,path (pylance)");

    assertThat(options.runs(PylanceWorkload.ON_LATEST)).isTrue();
    assertThat(options.runs(PylanceWorkload.PATH)).isTrue();
    assertThat(options.runs(PylanceWorkload.STRICT)).isFalse();
  }

  @Test
  void theStrictNamespaceAloneIsNotTakenForTheOneOnLatest() {
    BenchOptions options = options("namespace");

    assertThat(options.runs(PylanceWorkload.STRICT)).isTrue();
    assertThat(options.runs(PylanceWorkload.ON_LATEST)).isFalse();
  }

  private static BenchOptions options(String systems) {
    return BenchOptions.parse(new String[] {"--systems", systems}, new PrintStream(new ByteArrayOutputStream()));
  }
}
