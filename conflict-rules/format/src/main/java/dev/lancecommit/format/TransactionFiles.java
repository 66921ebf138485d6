package dev.lancecommit.format;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.Transaction;
import java.util.Objects;
import java.util.Optional;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * {@code _transactions/{read_version}-{uuid}.txn} files (lance-format.md section 2): the raw protobuf encoding of a
 * Transaction, with no length prefix, footer or magic. The manifest names the file in {@code transaction_file}
 * (relative to {@code _transactions/}).
 */
public final class TransactionFiles {
  /** A transaction file name carries the read version and the transaction uuid. */
  public record ParsedName(long readVersion, String uuid) {}

  public static final String TRANSACTIONS_DIR = "_transactions";
  public static final String EXTENSION = ".txn";

  private static final Pattern UUID =
      Pattern.compile("[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}");
  private static final Pattern NAME = Pattern.compile("([0-9]{1,20})-(" + UUID.pattern() + ")\\.txn");

  private TransactionFiles() {}

  /**
   * {@code {read_version}-{uuid}.txn}.
   *
   * @throws IllegalArgumentException if the uuid is not a hyphenated UUID (it becomes part of an object key, so
   *     nothing else is let through)
   */
  public static String fileName(Transaction transaction) {
    String uuid = transaction.getUuid();
    if (!isValidUuid(uuid)) {
      throw new IllegalArgumentException("transaction uuid must be a hyphenated UUID, got '" + uuid + "'");
    }
    return Long.toUnsignedString(transaction.getReadVersion()) + "-" + uuid + EXTENSION;
  }

  /** {@code _transactions/} + {@link #fileName}: the key relative to the table root. */
  public static String path(Transaction transaction) {
    return TRANSACTIONS_DIR + "/" + fileName(transaction);
  }

  /** The read version and uuid of a transaction file name (a path is accepted: the last segment is used). */
  public static Optional<ParsedName> parse(String fileName) {
    int slash = fileName.lastIndexOf('/');
    Matcher m = NAME.matcher(slash < 0 ? fileName : fileName.substring(slash + 1));
    if (!m.matches()) {
      return Optional.empty();
    }
    try {
      return Optional.of(new ParsedName(Long.parseUnsignedLong(m.group(1)), m.group(2)));
    } catch (NumberFormatException e) {
      return Optional.empty();
    }
  }

  /** A hyphenated UUID string: 8-4-4-4-12 hex digits (checked by hand: every commit checks its uuid twice). */
  public static boolean isValidUuid(String uuid) {
    if (uuid == null || uuid.length() != 36) {
      return false;
    }
    for (int i = 0; i < 36; i++) {
      char c = uuid.charAt(i);
      boolean ok = i == 8 || i == 13 || i == 18 || i == 23 ? c == '-' : Character.digit(c, 16) >= 0 && c < 128;
      if (!ok) {
        return false;
      }
    }
    return true;
  }

  public static byte[] encode(Transaction transaction) {
    return transaction.toByteArray();
  }

  /**
   * Decodes the bytes of a transaction file (or of any raw Transaction encoding). Fields this build does not know
   * are kept as unknown fields; a transaction whose operation is unknown decodes with {@code OPERATION_NOT_SET}.
   *
   * @throws CorruptManifestException if the bytes are not a protobuf message, or lack the uuid every Lance
   *     transaction carries (which is what random bytes that happen to parse look like)
   */
  public static Transaction decode(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    Transaction transaction;
    try {
      transaction = Transaction.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new CorruptManifestException(
          "not a Lance transaction (" + bytes.length + " bytes): " + e.getMessage(), e);
    }
    if (transaction.getUuid().isEmpty()) {
      throw new CorruptManifestException(
          "not a Lance transaction (" + bytes.length + " bytes): it has no uuid");
    }
    return transaction;
  }
}
