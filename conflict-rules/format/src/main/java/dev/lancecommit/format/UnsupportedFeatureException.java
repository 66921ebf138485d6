package dev.lancecommit.format;

/**
 * The table carries feature flags this coordinator does not understand, so committing could corrupt it
 * (HTTP 409, code 19).
 */
public class UnsupportedFeatureException extends RulesException {
  public UnsupportedFeatureException(String message) {
    super(message);
  }
}
