package dev.lancecommit.format;

import static dev.lancecommit.format.ManifestFileTest.concat;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import org.junit.jupiter.api.Test;

class MisencodedFieldsTest {
  private static final String UUID = "0b6f0c44-5ad5-4a3a-a5f4-1c2f2d7f5e10";

  private static Transaction append() {
    return Transaction.newBuilder().setReadVersion(3).setUuid(UUID)
        .putTransactionProperties("k", "v")
        .setAppend(Transaction.Append.newBuilder().addFragments(DataFragment.newBuilder().setId(0)
            .setPhysicalRows(5).addFiles(DataFile.newBuilder().setPath("a.lance").addFields(0))))
        .build();
  }

  @Test
  void aWellFormedTransactionAndFieldsOfFutureVersionsPass() throws Exception {
    assertThat(MisencodedFields.in(append())).isEmpty();
    // field 117 is declared nowhere: an unknown field is preserved, not refused
    Transaction future = Transaction.parseFrom(concat(append().toByteArray(), new byte[] {(byte) 0xAA, 0x07, 0}));
    assertThat(future.getUnknownFields().hasField(117)).isTrue();
    assertThat(MisencodedFields.in(future)).isEmpty();
  }

  @Test
  void aVarintUnderTheTransactionPropertiesMapIsFound() throws Exception {
    // tag (4 << 3 | 0) = 0x20: field 4 as a varint. Java keeps it as an unknown field; prost reads 0x7F as the length
    // of a map entry (the fuzz suite's "Transaction.transaction_properties: buffer underflow")
    Transaction parsed = Transaction.parseFrom(concat(append().toByteArray(), new byte[] {0x20, 0x7F}));
    assertThat(parsed.getTransactionPropertiesMap()).containsEntry("k", "v");
    assertThat(MisencodedFields.in(parsed)).singleElement().asString()
        .startsWith("transaction_properties (field 4");
  }

  @Test
  void aMisencodedFieldDeepInsideAnOperationIsNamedByItsPath() {
    // DataFile.path (field 1, a string) sent as a fixed32 inside the second file of the first fragment
    DataFile odd = DataFile.newBuilder().setPath("b.lance")
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(1, UnknownFieldSet.Field.newBuilder().addFixed32(7).build()).build())
        .build();
    Transaction txn = append().toBuilder()
        .setAppend(append().getAppend().toBuilder()
            .setFragments(0, append().getAppend().getFragments(0).toBuilder().addFiles(odd)))
        .build();
    assertThat(MisencodedFields.in(txn)).containsExactly("append.fragments[0].files[1].path (field 1, declared "
        + "string, sent with another wire type)");
    // the same number with the declared wire type is simply a field
    assertThat(MisencodedFields.in(append().toBuilder().setTag("x").build())).isEmpty();
  }
}
