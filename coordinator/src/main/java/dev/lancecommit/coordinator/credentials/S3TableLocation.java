package dev.lancecommit.coordinator.credentials;

import java.util.regex.Pattern;

/**
 * A table root on S3 that credentials can be scoped to: {@code s3://bucket/prefix/table.lance}.
 *
 * <p>IAM resource patterns treat {@code *} and {@code ?} as wildcards and {@code ${...}} as policy variables, so a
 * location carrying one of them would widen a session to other tables; such locations are refused rather than
 * escaped. A location at a bucket's root is refused too: scoping to it would cover every table in the bucket.
 *
 * @param bucket bucket name
 * @param keyPrefix the table's key prefix without leading or trailing slash, e.g. {@code prefix/table.lance}
 */
public record S3TableLocation(String bucket, String keyPrefix) {
  private static final String SCHEME = "s3://";
  private static final Pattern BUCKET = Pattern.compile("[A-Za-z0-9][A-Za-z0-9._-]{0,254}");

  public S3TableLocation {
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new InvalidTableLocationException("Invalid bucket name in table location: '" + bucket + "'");
    }
    checkPrefix(keyPrefix);
  }

  /** Parses {@code s3://bucket/prefix/table.lance} (a trailing slash is ignored). */
  public static S3TableLocation parse(String location) {
    if (location == null || location.isBlank()) {
      throw new InvalidTableLocationException("Table location is empty");
    }
    if (!location.startsWith(SCHEME)) {
      throw new InvalidTableLocationException("Credentials can only be vended for s3:// table locations, got '"
          + location + "'");
    }
    String rest = location.substring(SCHEME.length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    while (prefix.endsWith("/")) {
      prefix = prefix.substring(0, prefix.length() - 1);
    }
    if (prefix.isEmpty()) {
      throw new InvalidTableLocationException("Refusing to vend credentials for a whole bucket: '" + location
          + "' has no table prefix");
    }
    return new S3TableLocation(bucket, prefix);
  }

  /** {@code arn:aws:s3:::bucket/prefix/table.lance} followed by {@code suffix}. */
  String objectArn(String suffix) {
    return "arn:aws:s3:::" + bucket + "/" + keyPrefix + suffix;
  }

  /** {@code arn:aws:s3:::bucket}. */
  String bucketArn() {
    return "arn:aws:s3:::" + bucket;
  }

  /** {@code s3://bucket/prefix/table.lance}. */
  public String uri() {
    return SCHEME + bucket + "/" + keyPrefix;
  }

  private static void checkPrefix(String prefix) {
    if (prefix == null || prefix.isEmpty()) {
      throw new InvalidTableLocationException("Table location needs a key prefix below the bucket");
    }
    if (prefix.indexOf('*') >= 0 || prefix.indexOf('?') >= 0) {
      throw new InvalidTableLocationException("Refusing to vend credentials for a location with a wildcard "
          + "('*' or '?'), it would widen the grant to other tables: '" + prefix + "'");
    }
    if (prefix.contains("${")) {
      throw new InvalidTableLocationException("Refusing to vend credentials for a location with an IAM policy "
          + "variable ('${'): '" + prefix + "'");
    }
    if (prefix.startsWith("/")) {
      throw new InvalidTableLocationException("Table key prefix must not start with '/': '" + prefix + "'");
    }
    for (String segment : prefix.split("/", -1)) {
      if (segment.isEmpty() || segment.equals(".") || segment.equals("..")) {
        throw new InvalidTableLocationException("Table key prefix has an empty, '.' or '..' segment: '" + prefix
            + "'");
      }
    }
    for (int i = 0; i < prefix.length(); i++) {
      if (Character.isISOControl(prefix.charAt(i))) {
        throw new InvalidTableLocationException("Table key prefix contains a control character");
      }
    }
  }
}
