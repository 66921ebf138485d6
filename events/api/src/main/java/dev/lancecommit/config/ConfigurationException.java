package dev.lancecommit.config;

/** A configuration that cannot be used; the message names the key and what it accepts. */
public class ConfigurationException extends IllegalArgumentException {
  private final String key;

  public ConfigurationException(String key, String message) {
    super(message);
    this.key = key;
  }

  public ConfigurationException(String key, String message, Throwable cause) {
    super(message, cause);
    this.key = key;
  }

  /** The key at fault (null when the problem is not one key's). */
  public String key() {
    return key;
  }
}
