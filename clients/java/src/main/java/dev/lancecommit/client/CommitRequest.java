package dev.lancecommit.client;

import dev.lancecommit.format.pb.Transaction;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Objects;
import java.util.Optional;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * What one CommitTable call sends: a Lance transaction and, for a Delete or Update, the row addresses
 * ({@code fragment_id << 32 | offset}) it touched, so that the coordinator can rebase it over concurrent deletes of
 * other rows of the same fragments instead of refusing it.
 *
 * @param transaction the Lance transaction (the protobuf Lance writes to {@code _transactions/*.txn})
 * @param affectedRows the portable 64-bit Roaring map of the touched row addresses, if any
 */
public record CommitRequest(Transaction transaction, Optional<byte[]> affectedRows) {
  public CommitRequest {
    Objects.requireNonNull(transaction, "transaction");
    Objects.requireNonNull(affectedRows, "affectedRows");
    affectedRows = affectedRows.map(byte[]::clone);
  }

  public static CommitRequest of(Transaction transaction) {
    return new CommitRequest(transaction, Optional.empty());
  }

  public static CommitRequest of(Transaction transaction, Roaring64NavigableMap affectedRows) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (DataOutputStream out = new DataOutputStream(bytes)) {
      affectedRows.serializePortable(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new CommitRequest(transaction, Optional.of(bytes.toByteArray()));
  }

  @Override
  public Optional<byte[]> affectedRows() {
    return affectedRows.map(byte[]::clone);
  }
}
