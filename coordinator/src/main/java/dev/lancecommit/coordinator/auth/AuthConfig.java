package dev.lancecommit.coordinator.auth;

import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

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
  public static final String ENABLED = "auth.enabled";
  public static final String PRINCIPALS_PREFIX = "auth.principals.";
  public static final String GRANTS_PREFIX = "auth.grants.";
  public static final String API_KEY_SUFFIX = ".api-key";
  public static final String TOKEN_SUFFIX = ".token";

  /** A documented key (names with {@code <principal>} are patterns). */
  public record KeyDoc(String name, String defaultValue, String doc) {}

  public static final List<KeyDoc> KEYS = List.of(
      new KeyDoc(ENABLED, "false",
          "Require credentials (x-api-key or Authorization: Bearer) on every request and enforce grants. false keeps "
              + "the API open; commits then record the actor 'anonymous'."),
      new KeyDoc(PRINCIPALS_PREFIX + "<principal>" + API_KEY_SUFFIX, "",
          "API key of a principal, accepted in the x-api-key header. The principal's name is the commit actor."),
      new KeyDoc(PRINCIPALS_PREFIX + "<principal>" + TOKEN_SUFFIX, "",
          "Bearer token of a principal, accepted in Authorization: Bearer <token>."),
      new KeyDoc(GRANTS_PREFIX + "<principal>", "",
          "Comma-separated grants <id>:<read|write|commit|admin>, id parts joined by $ ($ alone = root), e.g. "
              + "sales:commit,sales$orders:read. A grant covers everything below the id; admin implies all, write and "
              + "commit imply read."));

  private static final Pattern PRINCIPAL_NAME = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._@-]{0,127}");
  private static final Pattern SECRET_KEY =
      Pattern.compile(Pattern.quote(PRINCIPALS_PREFIX) + "(.+)(" + Pattern.quote(API_KEY_SUFFIX) + "|"
          + Pattern.quote(TOKEN_SUFFIX) + ")");

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

  /** Authentication off: the default. */
  public static AuthConfig disabled() {
    return new AuthConfig(false, Map.of(), Map.of(), Map.of());
  }

  /** True for names of the documented form ({@code auth.enabled}, principal secrets and grants). */
  public static boolean isAuthKey(String name) {
    if (name.equals(ENABLED)) {
      return true;
    }
    Matcher secret = SECRET_KEY.matcher(name);
    if (secret.matches()) {
      return PRINCIPAL_NAME.matcher(secret.group(1)).matches();
    }
    return name.startsWith(GRANTS_PREFIX)
        && PRINCIPAL_NAME.matcher(name.substring(GRANTS_PREFIX.length())).matches();
  }

  /**
   * Reads the {@code auth.*} entries of {@code properties} (other keys are ignored).
   *
   * @throws IllegalArgumentException for an unknown {@code auth.*} key, a bad value, a grant for an undefined
   *     principal, a shared secret, or {@code auth.enabled=true} without any principal
   */
  public static AuthConfig parse(Map<String, String> properties) {
    boolean enabled = false;
    Map<String, String> apiKeys = new TreeMap<>();
    Map<String, String> tokens = new TreeMap<>();
    Map<String, List<Grant>> grants = new TreeMap<>();
    for (Map.Entry<String, String> entry : new TreeMap<>(properties).entrySet()) {
      String name = entry.getKey();
      String value = entry.getValue() == null ? "" : entry.getValue();
      if (!name.startsWith(PREFIX)) {
        continue;
      }
      if (!isAuthKey(name)) {
        throw new IllegalArgumentException("Unknown configuration key '" + name + "'. Known auth keys: "
            + KEYS.stream().map(KeyDoc::name).toList() + " (principal names: letters, digits, '.', '_', '@', '-')");
      }
      if (name.equals(ENABLED)) {
        enabled = parseBoolean(name, value);
        continue;
      }
      Matcher secret = SECRET_KEY.matcher(name);
      if (secret.matches()) {
        String principal = secret.group(1);
        (secret.group(2).equals(API_KEY_SUFFIX) ? apiKeys : tokens).put(principal, value);
        continue;
      }
      grants.put(name.substring(GRANTS_PREFIX.length()), parseGrants(name, value));
    }
    Set<String> principals = new TreeSet<>(apiKeys.keySet());
    principals.addAll(tokens.keySet());
    for (String principal : grants.keySet()) {
      if (!principals.contains(principal)) {
        throw new IllegalArgumentException("Configuration key " + GRANTS_PREFIX + principal
            + " grants to principal '" + principal + "', which has no " + PRINCIPALS_PREFIX + principal
            + API_KEY_SUFFIX + " or " + TOKEN_SUFFIX);
      }
    }
    if (enabled && principals.isEmpty()) {
      throw new IllegalArgumentException(ENABLED + "=true but no principal is configured: add "
          + PRINCIPALS_PREFIX + "<name>" + API_KEY_SUFFIX + " or " + TOKEN_SUFFIX);
    }
    AuthConfig config = new AuthConfig(enabled, apiKeys, tokens, grants);
    config.authenticator(); // validates the secrets even when disabled
    return config;
  }

  private static boolean parseBoolean(String name, String value) {
    String v = value.trim().toLowerCase(Locale.ROOT);
    if (!v.equals("true") && !v.equals("false")) {
      throw new IllegalArgumentException("Configuration key " + name + " needs true or false, got '" + value + "'");
    }
    return Boolean.parseBoolean(v);
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
        throw new IllegalArgumentException("Configuration key " + name + ": " + e.getMessage(), e);
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

  /** The keys as markdown table rows (no header), for {@code CoordinatorConfig.documentation()}. */
  public static String documentationRows() {
    StringBuilder out = new StringBuilder();
    for (KeyDoc key : KEYS) {
      out.append("| `").append(key.name()).append("` | `").append(key.defaultValue()).append("` | ")
          .append(key.doc()).append(" |\n");
    }
    return out.toString();
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
