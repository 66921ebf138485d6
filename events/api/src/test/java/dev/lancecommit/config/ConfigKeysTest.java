package dev.lancecommit.config;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.Map;
import org.junit.jupiter.api.Test;

class ConfigKeysTest {
  private static final ConfigKeys KEYS = new ConfigKeys();
  private static final ConfigKey<Integer> THREADS = KEYS.integer("pool.threads", 8, atLeast(1), "Worker threads.");
  private static final ConfigKey<Duration> TIMEOUT = KEYS.millis("call.timeout.ms", 1500, atLeast(0),
      "How long a call may take.");
  private static final ConfigKey<Boolean> VERIFY = KEYS.bool("verify", true, "Check | twice.");
  private static final ConfigKey<String> MODE = KEYS.string("mode", "fast", ConfigKeys.oneOf("fast", "safe"),
      "Speed or safety.");
  private static final ConfigKey<String> PASSWORD = KEYS.secret("password", "The secret.");
  private static final ConfigKey<Long> SEED = KEYS.longInteger("seed", null, null, "Optional seed.");
  private static final KeyFamily TOKENS = KEYS.secretFamily("tokens.<user>", "tokens\\.([a-z]+)",
      "A user's token.");
  private static final KeyFamily TAGS = KEYS.family("tags.<name>", "tags\\.(.+)", "", "Free tags.");

  @Test
  void valuesReadAsTheirTypesAndKeysNotGivenReadAsTheirDefaults() {
    Config defaults = KEYS.defaults();
    assertThat(defaults.get(THREADS)).isEqualTo(8);
    assertThat(defaults.get(TIMEOUT)).isEqualTo(Duration.ofMillis(1500));
    assertThat(defaults.get(VERIFY)).isTrue();
    assertThat(defaults.get(MODE)).isEqualTo("fast");
    assertThat(defaults.get(PASSWORD)).isEmpty();
    assertThat(defaults.get(SEED)).isNull();

    Config config = KEYS.parse(Map.of("pool.threads", " 3 ", "call.timeout.ms", "0", "verify", "FALSE",
        "mode", "SAFE", "password", "p4ss", "seed", "-7", "tokens.ann", "t-1", "tags.team", "core"));
    assertThat(config.get(THREADS)).isEqualTo(3);
    assertThat(config.get(TIMEOUT)).isZero();
    assertThat(config.get(VERIFY)).isFalse();
    assertThat(config.get(MODE)).isEqualTo("SAFE");
    assertThat(config.get(PASSWORD)).isEqualTo("p4ss");
    assertThat(config.get(SEED)).isEqualTo(-7L);
    assertThat(config.family(TOKENS)).containsExactly(Map.entry("ann", "t-1"));
    assertThat(config.family(TAGS)).containsExactly(Map.entry("team", "core"));
    assertThat(config.toString()).contains("pool.threads=3").doesNotContain("p4ss").doesNotContain("t-1");
  }

  @Test
  void aBadValueIsRefusedNamingTheKeyAndWhatItAccepts() {
    assertThatThrownBy(() -> KEYS.parse(Map.of("pool.threads", "many")))
        .isInstanceOf(ConfigurationException.class)
        .hasMessage("Configuration key pool.threads needs a whole number, got 'many' (accepts a whole number, "
            + "[1,...])")
        .extracting(e -> ((ConfigurationException) e).key()).isEqualTo("pool.threads");
    assertThatThrownBy(() -> KEYS.parse(Map.of("pool.threads", "0")))
        .hasMessage("Configuration key pool.threads: Value must be at least 1, got '0' (accepts a whole number, "
            + "[1,...])");
    assertThatThrownBy(() -> KEYS.parse(Map.of("verify", "yes")))
        .hasMessageStartingWith("Configuration key verify needs true or false, got 'yes'");
    assertThatThrownBy(() -> KEYS.parse(Map.of("mode", "reckless")))
        .hasMessageContaining("mode").hasMessageContaining("one of fast, safe");
  }

  @Test
  void anUnknownKeyIsRefusedWithTheNearestNames() {
    assertThatThrownBy(() -> KEYS.parse(Map.of("pool.thread", "3")))
        .hasMessage("Unknown configuration key 'pool.thread'. Did you mean pool.threads?");
    assertThatThrownBy(() -> KEYS.parse(Map.of("tokens.Ann", "t")))
        .hasMessageContaining("Unknown configuration key 'tokens.Ann'").hasMessageContaining("tokens.<user>");
    assertThat(KEYS.accepts("tags.anything.at.all")).isTrue();
  }

  @Test
  void aRequiredKeyMustBeGiven() {
    ConfigKeys keys = new ConfigKeys();
    ConfigKey<String> servers = keys.requiredString("servers", "Where to connect.");
    assertThatThrownBy(keys::defaults).hasMessageStartingWith("Configuration key servers is required");
    assertThat(keys.parse(Map.of("servers", "h:1")).get(servers)).isEqualTo("h:1");
  }

  @Test
  void groupsCombineAndRefuseANameDeclaredTwice() {
    ConfigKeys other = new ConfigKeys();
    ConfigKey<Integer> port = other.integer("port", 80, null, "Port.");
    ConfigKeys all = ConfigKeys.of(KEYS, other);
    Config config = all.parse(Map.of("port", "8080", "pool.threads", "2"));
    assertThat(config.get(port)).isEqualTo(8080);
    assertThat(config.get(THREADS)).isEqualTo(2);
    assertThatThrownBy(() -> ConfigKeys.of(KEYS, KEYS)).hasMessageContaining("declared twice");
    assertThatThrownBy(() -> KEYS.defaults().get(port)).hasMessageContaining("not one of this group");
  }

  @Test
  void theMarkdownTableDocumentsEveryKeyAndFamilyOnce() {
    String table = KEYS.markdown();
    assertThat(table).startsWith("| key | default | accepts | meaning |\n|---|---|---|---|\n")
        .contains("| `pool.threads` | `8` | a whole number, [1,...] | Worker threads. |")
        .contains("| `call.timeout.ms` | `1500` | a whole number, [0,...] | How long a call may take. |")
        .contains("| `verify` | `true` | true or false | Check \\| twice. |")
        .contains("| `mode` | `fast` | text, one of fast, safe | Speed or safety. |")
        .contains("| `password` |  | a secret | The secret. |")
        .contains("| `tokens.<user>` |  | secret | A user's token. |");
    assertThat(table.lines().count()).isEqualTo(2 + KEYS.keys().size() + KEYS.families().size());
  }
}
