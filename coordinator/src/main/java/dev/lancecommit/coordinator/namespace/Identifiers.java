package dev.lancecommit.coordinator.namespace;

import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;

/**
 * Rules for identifier parts and their reversible encoding into object keys.
 *
 * <p>A part is non-empty, at most {@value #MAX_PART_LENGTH} characters, holds no {@code $} (the canonical delimiter
 * used in Kafka keys and {@code TableRef.joinedId}, so the joined form stays unambiguous whatever delimiter a request
 * used), no {@code /}, no control characters, and does not start with {@code _} or {@code .} (those prefixes are
 * reserved for the catalog and for Lance's own directories such as {@code _versions}).
 *
 * <p>Each part is percent-encoded (every UTF-8 byte outside {@code A-Z a-z 0-9 - . _ ~}) and parts are joined by
 * {@code /}, so an encoded id never contains {@code ..} segments or characters object stores treat specially.
 */
public final class Identifiers {
  public static final int MAX_PART_LENGTH = 255;
  /**
   * Longest percent-encoded part: the encoded part plus {@code .json} (catalog file) and the raw part plus
   * {@code .lance} (default table directory) must both fit a 255-byte file name on local filesystems.
   */
  public static final int MAX_ENCODED_PART_LENGTH = 249;
  public static final String CANONICAL_DELIMITER = "$";

  /** Listing order: part by part ({@link String#compareTo}), a prefix before its extensions. */
  public static final Comparator<List<String>> ORDER = (a, b) -> {
    int common = Math.min(a.size(), b.size());
    for (int i = 0; i < common; i++) {
      int c = a.get(i).compareTo(b.get(i));
      if (c != 0) {
        return c;
      }
    }
    return Integer.compare(a.size(), b.size());
  };

  private Identifiers() {}

  /** Checks every part; an empty list (the root namespace) is valid. */
  public static void validate(List<String> id) {
    for (String part : id) {
      validatePart(part);
    }
  }

  static void validatePart(String part) {
    if (part == null || part.isEmpty()) {
      throw new InvalidCatalogInputException("Identifier parts must not be empty");
    }
    if (part.length() > MAX_PART_LENGTH) {
      throw new InvalidCatalogInputException(
          "Identifier part is longer than " + MAX_PART_LENGTH + " characters: '" + abbreviate(part) + "'");
    }
    if (part.contains(CANONICAL_DELIMITER)) {
      throw new InvalidCatalogInputException("Identifier part '" + part + "' must not contain '$'");
    }
    if (part.indexOf('/') >= 0) {
      throw new InvalidCatalogInputException("Identifier part '" + part + "' must not contain '/'");
    }
    if (part.startsWith("_") || part.startsWith(".")) {
      throw new InvalidCatalogInputException("Identifier part '" + part + "' must not start with '_' or '.'");
    }
    if (part.chars().anyMatch(Character::isISOControl)) {
      throw new InvalidCatalogInputException("Identifier part must not contain control characters");
    }
    if (encodePart(part).length() > MAX_ENCODED_PART_LENGTH) {
      throw new InvalidCatalogInputException("Identifier part '" + abbreviate(part) + "' is longer than "
          + MAX_ENCODED_PART_LENGTH + " bytes once percent-encoded for object keys");
    }
  }

  /** The id as humans and the Kafka key see it: parts joined by {@code $}, quoted; the root is {@code '$'}. */
  public static String display(List<String> id) {
    return "'" + (id.isEmpty() ? CANONICAL_DELIMITER : String.join(CANONICAL_DELIMITER, id)) + "'";
  }

  /** Percent-encodes each part and joins them with {@code /}. The root encodes to the empty string. */
  public static String encode(List<String> id) {
    StringBuilder out = new StringBuilder();
    for (String part : id) {
      if (out.length() > 0) {
        out.append('/');
      }
      out.append(encodePart(part));
    }
    return out.toString();
  }

  /** Inverse of {@link #encode}. */
  public static List<String> decode(String encoded) {
    if (encoded.isEmpty()) {
      return List.of();
    }
    List<String> parts = new ArrayList<>();
    for (String part : encoded.split("/", -1)) {
      ByteArrayOutputStream bytes = new ByteArrayOutputStream(part.length());
      for (int i = 0; i < part.length(); i++) {
        char c = part.charAt(i);
        if (c == '%') {
          if (i + 2 >= part.length()) {
            throw new IllegalArgumentException("Truncated percent escape in '" + encoded + "'");
          }
          bytes.write(Integer.parseInt(part.substring(i + 1, i + 3), 16));
          i += 2;
        } else {
          bytes.write(c);
        }
      }
      parts.add(bytes.toString(StandardCharsets.UTF_8));
    }
    return List.copyOf(parts);
  }

  private static String abbreviate(String part) {
    return part.length() <= 32 ? part : part.substring(0, 32) + "...";
  }

  private static String encodePart(String part) {
    StringBuilder out = new StringBuilder(part.length());
    for (byte b : part.getBytes(StandardCharsets.UTF_8)) {
      int c = b & 0xff;
      if (isUnreserved(c)) {
        out.append((char) c);
      } else {
        out.append('%')
            .append(Character.toUpperCase(Character.forDigit(c >> 4, 16)))
            .append(Character.toUpperCase(Character.forDigit(c & 0xf, 16)));
      }
    }
    return out.toString();
  }

  private static boolean isUnreserved(int c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9')
        || c == '-' || c == '.' || c == '_' || c == '~';
  }
}
