package dev.lancecommit.config;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import picocli.CommandLine.Option;

class ConfigCommandLineTest {
  private static final ConfigKeys KEYS = new ConfigKeys();
  private static final ConfigKey<Integer> PORT = KEYS.integer("port", 9101, null, "Port.");
  private static final ConfigKey<String> HOST = KEYS.string("host", "127.0.0.1", "Host.");
  private static final ConfigKey<Boolean> KEEP = KEYS.bool("keep", false, "Keep it.");
  private static final ConfigKey<Boolean> VERIFY = KEYS.bool("verify", true, "Verify.");
  private static final KeyFamily GRANTS = KEYS.family("grants.<who>", "grants\\.([a-z]+)", "", "Grants.");

  @TempDir Path dir;

  static final class Flags {
    @Option(names = "--label", description = "A flag of the command's own.")
    String label;
  }

  private static ConfigCommandLine commandLine(Object flags) {
    return new ConfigCommandLine("demo", "A demo command.", flags, KEYS);
  }

  @Test
  void everyKeyIsAnOptionInEitherSpellingAndABooleanAloneMeansTrue() {
    ConfigCommandLine commandLine = commandLine(null);
    assertThat(commandLine.parse(System.out, "--port", "0", "--host=::1", "--keep", "--verify", "false",
        "--grants.ann", "a:read", "--grants.bob=b:read")).isTrue();
    Config config = KEYS.parse(commandLine.values());
    assertThat(config.get(PORT)).isZero();
    assertThat(config.get(HOST)).isEqualTo("::1");
    assertThat(config.get(KEEP)).isTrue();
    assertThat(config.get(VERIFY)).isFalse();
    assertThat(config.family(GRANTS)).containsExactly(Map.entry("ann", "a:read"), Map.entry("bob", "b:read"));
  }

  @Test
  void theConfigFileIsReadFirstAndTheCommandLineWins() throws Exception {
    Path file = dir.resolve("demo.properties");
    Files.writeString(file, "port=7000\nhost=from-file\ngrants.ann=x:read\n");
    ConfigCommandLine commandLine = commandLine(null);
    commandLine.parse(System.out, "--config", file.toString(), "--port", "1");
    assertThat(commandLine.values()).containsExactly(Map.entry("port", "1"), Map.entry("host", "from-file"),
        Map.entry("grants.ann", "x:read"));
    assertThat(commandLine.given(HOST)).isTrue();
    assertThat(commandLine.given(KEEP)).isFalse();
    ConfigCommandLine missing = commandLine(null);
    missing.parse(System.out, "--config", dir.resolve("nope").toString());
    assertThatThrownBy(missing::values).hasMessageContaining("Cannot read configuration file");
  }

  @Test
  void aliasesSetAndTheCommandsOwnOptionsAreKept() {
    Flags flags = new Flags();
    ConfigCommandLine commandLine = commandLine(flags).alias("--listen", PORT, "PORT").withSetOption();
    commandLine.parse(System.out, "--listen", "5", "--label", "x", "--set", "host=h", "--set", "grants.cy=c:read");
    assertThat(flags.label).isEqualTo("x");
    assertThat(KEYS.parse(commandLine.values()).get(PORT)).isEqualTo(5);
    assertThat(commandLine.values()).containsEntry("host", "h").containsEntry("grants.cy", "c:read");
    assertThat(commandLine.values(new ConfigKeys())).isEmpty();
  }

  @Test
  void badArgumentsAreRefusedNamingThem() {
    assertThatThrownBy(() -> commandLine(null).parse(System.out, "--prot", "1"))
        .isInstanceOf(ConfigurationException.class)
        .hasMessageStartingWith("Unknown option '--prot'. Did you mean --port");
    assertThatThrownBy(() -> commandLine(null).parse(System.out, "--port"))
        .isInstanceOf(ConfigurationException.class).hasMessageContaining("--port");
    assertThatThrownBy(() -> commandLine(null).parse(System.out, "--grants.ann"))
        .hasMessageContaining("--grants.ann needs a value");
    assertThatThrownBy(() -> commandLine(null).parse(System.out, "stray"))
        .hasMessageContaining("stray");
  }

  @Test
  void helpPrintsTheUsageAndTheKeysTable() {
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    boolean parsed = commandLine(new Flags()).parse(new PrintStream(out, true, StandardCharsets.UTF_8), "--help");
    assertThat(parsed).isFalse();
    String help = out.toString(StandardCharsets.UTF_8);
    assertThat(help).startsWith("Usage: demo [--label <label>] [--config FILE] [--<key> VALUE]...").contains("A demo command.")
        .contains("--label").contains(KEYS.markdown()).doesNotContain("--port=");
  }
}
