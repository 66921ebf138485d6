package dev.lancecommit.coordinator.auth;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.config.ConfigurationException;
import dev.lancecommit.config.KeyFamily;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The {@code auth.*} configuration keys and the {@link AccessControl} they describe.
 *
 * <pre>
 * auth.enabled=true
 * auth.principals.etl.api-key=k-3f1c...
 * auth.principals.etl.token=t-99ab...
 * auth.principals.analyst.token=t-07de...
 * auth.grants.etl=sales:commit,sales:write
 * auth.grants.analyst=sales$orders:read,marketing:read
 * </pre>
 *
 * A principal needs at least one secret. Grants apply to the named namespace or table and everything below it;
 * {@code $} alone is the root namespace. Unknown {@code auth.*} keys, grants for principals that are not defined
 * and a secret shared by two principals are refused, so a typo cannot silently open or close access.
 */
public final class AuthConfig {
  public static final String PREFIX = "auth.";
  private static final String PRINCIPAL = "([A-Za-z0-9][A-Za-z0-9._@-]{0,127})";

  private static final ConfigKeys KEYS = new ConfigKeys();

  public static final ConfigKey<Boolean> ENABLED = KEYS.bool("auth.enabled", false,
      "Require credentials (x-api-key or Authorization: Bearer) on every request and enforce grants. false keeps "
          + "the API open; commits then record the actor 'anonymous'.");
  public static final KeyFamily API_KEYS = KEYS.secretFamily("auth.principals.<principal>.api-key",
      "auth\\.principals\\." + PRINCIPAL + "\\.api-key",
      "API key of a principal, accepted in the x-api-key header. The principal's name (letters, digits, '.', '_', "
          + "'@', '-') is the commit actor.");
  public static final KeyFamily TOKENS = KEYS.secretFamily("auth.principals.<principal>.token",
      "auth\\.principals\\." + PRINCIPAL + "\\.token",
      "Bearer token of a principal, accepted in Authorization: Bearer <token>.");
  public static final KeyFamily GRANTS = KEYS.family("auth.grants.<principal>", "auth\\.grants\\." + PRINCIPAL, "",
      "Comma-separated grants <id>:<read|write|commit|admin>, id parts joined by $ ($ alone = root), e.g. "
          + "sales:commit,sales$orders:read. A grant covers everything below the id; admin implies all, write and "
          + "commit imply read.");

  private final boolean enabled;
  private final Map<String, String> apiKeys;
  private final Map<String, String> tokens;
  private final Map<String, List<Grant>> grants;

  private AuthConfig(boolean enabled, Map<String, String> apiKeys, Map<String, String> tokens,
      Map<String, List<Grant>> grants) {
    this.enabled = enabled;
    this.apiKeys = Map.copyOf(apiKeys);
    this.tokens = Map.copyOf(tokens);
    this.grants = Map.copyOf(grants);
  }

  /** The {@code auth.*} keys and key families. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  /** Authentication off: the default. */
  public static AuthConfig disabled() {
    return new AuthConfig(false, Map.of(), Map.of(), Map.of());
  }

  /** True for names of the documented form ({@code auth.enabled}, principal secrets and grants). */
  public static boolean isAuthKey(String name) {
    return KEYS.accepts(name);
  }

  /**
   * Reads the {@code auth.*} entries of {@code properties} (other keys are ignored).
   *
   * @throws IllegalArgumentException for an unknown {@code auth.*} key, a bad value, a grant for an undefined
   *     principal, a shared secret, or {@code auth.enabled=true} without any principal
   */
  public static AuthConfig parse(Map<String, String> properties) {
    Map<String, String> auth = new TreeMap<>();
    properties.forEach((name, value) -> {
      if (name.startsWith(PREFIX)) {
        auth.put(name, value == null ? "" : value);
      }
    });
    return from(KEYS.parse(auth));
  }

  /**
   * Reads the auth keys from a configuration that includes them (the coordinator's).
   *
   * @throws IllegalArgumentException for a bad grant, a grant for an undefined principal, a shared secret, or
   *     {@code auth.enabled=true} without any principal
   */
  public static AuthConfig from(Config config) {
    boolean enabled = config.get(ENABLED);
    Map<String, String> apiKeys = config.family(API_KEYS);
    Map<String, String> tokens = config.family(TOKENS);
    Map<String, List<Grant>> grants = new TreeMap<>();
    config.family(GRANTS).forEach((principal, value) ->
        grants.put(principal, parseGrants("auth.grants." + principal, value == null ? "" : value)));
    Set<String> principals = new TreeSet<>(apiKeys.keySet());
    principals.addAll(tokens.keySet());
    for (String principal : grants.keySet()) {
      if (!principals.contains(principal)) {
        throw new ConfigurationException("auth.grants." + principal, "Configuration key auth.grants." + principal
            + " grants to principal '" + principal + "', which has no auth.principals." + principal
            + ".api-key or .token");
      }
    }
    if (enabled && principals.isEmpty()) {
      throw new ConfigurationException(ENABLED.name(), ENABLED.name() + "=true but no principal is configured: add "
          + "auth.principals.<name>.api-key or .token");
    }
    AuthConfig auth = new AuthConfig(enabled, apiKeys, tokens, grants);
    auth.authenticator(); // validates the secrets even when disabled
    return auth;
  }

  private static List<Grant> parseGrants(String name, String value) {
    List<Grant> out = new ArrayList<>();
    if (value.isBlank()) {
      return out;
    }
    for (String item : value.split(",")) {
      if (item.isBlank()) {
        continue;
      }
      try {
        out.add(Grant.parse(item));
      } catch (IllegalArgumentException e) {
        throw new ConfigurationException(name, "Configuration key " + name + ": " + e.getMessage(), e);
      }
    }
    return out;
  }

  public boolean enabled() {
    return enabled;
  }

  public Set<String> principals() {
    Set<String> names = new TreeSet<>(apiKeys.keySet());
    names.addAll(tokens.keySet());
    return names;
  }

  public Map<String, List<Grant>> grants() {
    return grants;
  }

  /** The access control these settings describe; {@link AccessControl#disabled()} unless enabled. */
  public AccessControl accessControl() {
    return enabled ? AccessControl.enabled(authenticator(), new GrantTable(grants)) : AccessControl.disabled();
  }

  private StaticAuthenticator authenticator() {
    StaticAuthenticator.Builder builder = StaticAuthenticator.builder();
    try {
      apiKeys.forEach(builder::apiKey);
      tokens.forEach(builder::token);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("Invalid auth configuration: " + e.getMessage(), e);
    }
    return builder.build();
  }

  @Override
  public String toString() {
    Map<String, Object> shown = new LinkedHashMap<>();
    shown.put("enabled", enabled);
    shown.put("principals", principals());
    shown.put("grants", grants);
    return "AuthConfig" + shown;
  }
}
