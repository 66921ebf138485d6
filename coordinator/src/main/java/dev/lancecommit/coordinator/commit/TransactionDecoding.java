package dev.lancecommit.coordinator.commit;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;

/** Turns request bytes into a Lance transaction, refusing what is not one. */
final class TransactionDecoding {
  private TransactionDecoding() {}

  static Transaction decode(byte[] bytes) {
    if (bytes == null || bytes.length == 0) {
      throw new InvalidTransactionException("The request carries no transaction bytes");
    }
    try {
      return Transaction.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidTransactionException(
          "The request body is not a Lance Transaction protobuf: " + e.getMessage(), e);
    }
  }
}
