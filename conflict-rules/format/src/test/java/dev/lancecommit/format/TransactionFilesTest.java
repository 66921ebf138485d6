package dev.lancecommit.format;

import static dev.lancecommit.format.ManifestFileTest.concat;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.Transaction;
import java.nio.charset.StandardCharsets;
import org.junit.jupiter.api.Test;

class TransactionFilesTest {
  private static final String UUID = "0b6f0c44-5ad5-4a3a-a5f4-1c2f2d7f5e10";

  @Test
  void namesTheFileAfterReadVersionAndUuid() {
    Transaction txn = Transaction.newBuilder().setReadVersion(12).setUuid(UUID).build();
    assertThat(TransactionFiles.fileName(txn)).isEqualTo("12-" + UUID + ".txn");
    assertThat(TransactionFiles.path(txn)).isEqualTo("_transactions/12-" + UUID + ".txn");
    assertThat(TransactionFiles.fileName(txn.toBuilder().setReadVersion(0).build())).isEqualTo("0-" + UUID + ".txn");
    assertThat(TransactionFiles.parse("_transactions/12-" + UUID + ".txn"))
        .contains(new TransactionFiles.ParsedName(12, UUID));
  }

  @Test
  void refusesAUuidThatIsNotAUuid() {
    for (String bad : new String[] {"", "../../_versions/1", "not-a-uuid", UUID + "/x"}) {
      Transaction txn = Transaction.newBuilder().setReadVersion(1).setUuid(bad).build();
      assertThatThrownBy(() -> TransactionFiles.fileName(txn))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("uuid");
    }
  }

  @Test
  void aUuidIsEightFourFourFourTwelveHexDigitsEitherCase() {
    assertThat(TransactionFiles.isValidUuid(UUID)).isTrue();
    assertThat(TransactionFiles.isValidUuid(UUID.toUpperCase(java.util.Locale.ROOT))).isTrue();
    assertThat(TransactionFiles.isValidUuid(java.util.UUID.randomUUID().toString())).isTrue();
    for (String bad : new String[] {null, "", UUID.substring(1), UUID + "0", UUID.replace('-', '_'),
        "0b6f0c445-ad5-4a3a-a5f4-1c2f2d7f5e10", UUID.replace('b', 'g'), UUID.replace('0', '\uff10'),
        UUID.replace("-", ""), "{" + UUID.substring(1, 35) + "}"}) {
      assertThat(TransactionFiles.isValidUuid(bad)).as(bad).isFalse();
    }
  }

  @Test
  void parseRejectsOtherNames() {
    for (String name : new String[] {"12-" + UUID, "x-" + UUID + ".txn", "12-nope.txn", "12" + UUID + ".txn"}) {
      assertThat(TransactionFiles.parse(name)).as(name).isEmpty();
    }
  }

  @Test
  void encodesTheRawMessageAndKeepsUnknownFields() throws Exception {
    Transaction txn =
        Transaction.newBuilder()
            .setReadVersion(4)
            .setUuid(UUID)
            .setReserveFragments(Transaction.ReserveFragments.newBuilder().setNumFragments(2))
            .build();
    assertThat(TransactionFiles.encode(txn)).isEqualTo(txn.toByteArray());

    // field 117 (an operation this build does not know) appended to the encoding
    byte[] future = concat(txn.toBuilder().clearOperation().build().toByteArray(), new byte[] {(byte) 0xAA, 0x07, 0});
    Transaction decoded = TransactionFiles.decode(future);
    assertThat(decoded.getOperationCase()).isEqualTo(Transaction.OperationCase.OPERATION_NOT_SET);
    assertThat(decoded.getUnknownFields().hasField(117)).isTrue();
    assertThat(TransactionFiles.encode(decoded)).isEqualTo(future);
  }

  @Test
  void garbageIsAClearError() {
    assertThatThrownBy(() -> TransactionFiles.decode(new byte[] {(byte) 0xFF, (byte) 0xFF, (byte) 0xFF}))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("not a Lance transaction");
    assertThatThrownBy(() -> TransactionFiles.decode(new byte[0]))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("no uuid");
    // parses as protobuf (field 13 varint, ...) but is no transaction
    assertThatThrownBy(() -> TransactionFiles.decode("hello".getBytes(StandardCharsets.US_ASCII)))
        .isInstanceOf(CorruptManifestException.class)
        .hasMessageContaining("not a Lance transaction");
  }
}
