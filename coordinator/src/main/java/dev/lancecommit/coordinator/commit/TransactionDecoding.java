package dev.lancecommit.coordinator.commit;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.MisencodedFields;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import java.util.List;

/** Turns request bytes into a Lance transaction, refusing what is not one. */
public final class TransactionDecoding {
  private TransactionDecoding() {}

  public static Transaction decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw new InvalidTransactionException("The request carries no transaction bytes");
    }
    Transaction transaction;
    try {
      transaction = Transaction.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidTransactionException(
          "The request body is not a Lance Transaction protobuf: " + e.getMessage(), e);
    }
    List<String> misencoded = MisencodedFields.in(transaction);
    if (!misencoded.isEmpty()) {
      throw new InvalidTransactionException("The transaction has fields whose wire type is not the one Lance "
          + "declares, which stock Lance would fail to decode: " + String.join("; ", misencoded));
    }
    return transaction;
  }
}
