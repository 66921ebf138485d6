package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.function.UnaryOperator;
import org.junit.jupiter.api.Test;

/**
 * Field values that make a version unreadable for stock Lance are refused when the transaction is validated, before
 * any I/O. (Which of them stock Lance really refuses is established against Lance itself by
 * {@code PoisonedFieldsDifferentialTest} in chaos-tests.)
 */
class ReadableFieldsTest {
  private static final TableState LATEST = table(5, 2, fragment(0, 10), fragment(2, 10));

  private static void assertInvalid(Transaction txn, String message) {
    assertThatThrownBy(() -> TransactionValidator.validate(txn, LATEST))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(message);
  }

  private static Transaction appended(UnaryOperator<DataFragment.Builder> change) {
    return append(5, change.apply(newFragment("new", 10).toBuilder()).build());
  }

  private static Transaction appendedFile(UnaryOperator<DataFile.Builder> change) {
    return appended(f -> f.setFiles(0, change.apply(f.getFiles(0).toBuilder())));
  }

  @Test
  void aWellFormedFragmentPasses() {
    assertThatCode(() -> TransactionValidator.validate(appended(f -> f), LATEST)).doesNotThrowAnyException();
  }

  @Test
  void fragmentIdsAndRowCountsMustFitWhatRowAddressesCanHold() {
    assertInvalid(appended(f -> f.setId(1L << 32)), "fragment ids are 32-bit");
    assertInvalid(appended(f -> f.setId(-1L)), "fragment ids are 32-bit");
    assertInvalid(appended(f -> f.setPhysicalRows(-1L)), "at most 2^32 rows");
    assertInvalid(appended(f -> f.setPhysicalRows((1L << 32) + 1)), "at most 2^32 rows");
  }

  @Test
  void aFragmentNeedsADataFileThatStoresAField() {
    assertInvalid(appended(DataFragment.Builder::clearFiles), "no data file that stores a field");
    assertInvalid(appendedFile(d -> d.clearFields().addFields(-2).addFields(-2).clearColumnIndices()
        .addColumnIndices(0).addColumnIndices(1)), "no data file that stores a field");
  }

  @Test
  void everyNonNullableTopLevelFieldMustBeStoredByTheFragment() {
    // id (0) and vec (2, whose data is its child item 3) non-nullable, name (1) nullable
    List<Field> schema = SCHEMA.stream().map(f -> f.getId() == 0 || f.getId() == 2
        ? f.toBuilder().setNullable(false).build() : f).toList();
    TableState latest = new TableState(LATEST.manifest().toBuilder().clearFields().addAllFields(schema).build(), List.of());
    Transaction noId = append(5, DataFragment.newBuilder().setPhysicalRows(10)
        .addFiles(file("no-id.lance", 1, 2, 3)).build());
    assertThatThrownBy(() -> TransactionValidator.validate(noId, latest))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("stores no data for field 'id' (id 0), which the schema declares non-nullable");
    // a nullable field may be missing (Lance reads it as nulls), and a child stands for its parent
    Transaction noName = append(5, DataFragment.newBuilder().setPhysicalRows(10)
        .addFiles(file("no-name.lance", 0, 3)).build());
    assertThatCode(() -> TransactionValidator.validate(noName, latest)).doesNotThrowAnyException();
    // split over two files of the fragment is stored
    Transaction split = append(5, DataFragment.newBuilder().setPhysicalRows(10)
        .addFiles(file("a.lance", 1, 2, 3)).addFiles(file("b.lance", 0)).build());
    assertThatCode(() -> TransactionValidator.validate(split, latest)).doesNotThrowAnyException();
    // a fragment that already lacked the field (an old table) may still get a deletion file
    DataFragment old = DataFragment.newBuilder().setId(0).setPhysicalRows(10).addFiles(file("old.lance", 1, 2, 3))
        .build();
    TableState oldTable = new TableState(latest.manifest().toBuilder().clearFragments().addFragments(old).build(), List.of());
    assertThatCode(() -> TransactionValidator.validate(delete(5, List.of(withDeletions(old, 5, 2))), oldTable))
        .doesNotThrowAnyException();
  }

  @Test
  void deletionFilesMustBeOfAKnownTypeAndDeleteNoMoreRowsThanTheFragmentHas() {
    DataFragment updated = withDeletions(fragment(0, 10), 5, 11);
    assertInvalid(delete(5, List.of(updated)), "deletes 11 rows (num_deleted_rows) but has 10");
    DataFragment unknownType = fragment(0, 10).toBuilder().setDeletionFile(DeletionFile.newBuilder()
        .setFileTypeValue(7).setId(1).setNumDeletedRows(1)).build();
    assertInvalid(delete(5, List.of(unknownType)), "unknown type 7");
    assertThatCode(() -> TransactionValidator.validate(delete(5, List.of(withDeletions(fragment(0, 10), 5, 10))),
        LATEST)).doesNotThrowAnyException();
  }

  @Test
  void dataFilesFieldIdsAndColumnIndicesMustAgree() {
    // a negative id other than the tombstone is no field of the schema (400/20, as any unknown field id)
    assertThatThrownBy(() -> TransactionValidator.validate(appendedFile(d -> d.setFields(1, -1)), LATEST))
        .isInstanceOf(SchemaContractException.class).hasMessageContaining("names field id -1");
    assertInvalid(appendedFile(d -> d.setFields(1, 0)), "names field id 0 twice");
    assertInvalid(appendedFile(d -> d.clearColumnIndices().addColumnIndices(0)), "has 1 column indices for 4 fields");
    assertInvalid(appendedFile(d -> d.setColumnIndices(1, -5)), "column index -5");
    assertInvalid(appendedFile(d -> d.setColumnIndices(1, 0)), "gives column index 0 to two fields");
    assertInvalid(appendedFile(d -> d.setFileSizeBytes(-1)), "size out of range");
    // a legacy file has no column indices
    assertThatCode(() -> TransactionValidator.validate(appendedFile(d -> d.clearColumnIndices()
        .setFileMajorVersion(0).setFileMinorVersion(0)), LATEST)).doesNotThrowAnyException();
  }

  @Test
  void aFieldMayBeStoredByOneDataFileOfAFragmentOnly() {
    assertInvalid(appended(f -> f.addFiles(file("second.lance", 1))), "stores field id 1 in two data files");
    // an update that tombstones the field in the old file and writes it anew is the normal way
    DataFragment rewritten = fragment(0, 10).toBuilder()
        .setFiles(0, fragment(0, 10).getFiles(0).toBuilder().setFields(1, -2))
        .addFiles(file("new-name.lance", 1)).build();
    Transaction update = txn(5).setUpdate(Transaction.Update.newBuilder().addUpdatedFragments(rewritten)
        .addFieldsModified(1).setUpdateMode(Transaction.UpdateMode.REWRITE_COLUMNS)).build();
    assertThatCode(() -> TransactionValidator.validate(update, LATEST)).doesNotThrowAnyException();
  }

  @Test
  void rowIdAndVersionSequencesMustDecodeAndCoverNoMoreRowsThanTheFragment() {
    TableState stable = stableTable(5, 2, 100, withRowIds(fragment(0, 10), 0));
    Transaction tooMany = append(5, newFragment("a", 3).toBuilder().setInlineRowIds(RowIds.encodeFresh(100, 4))
        .build());
    assertThatThrownBy(() -> TransactionValidator.validate(tooMany, stable)).hasMessageContaining("of 4 rows but 3");
    Transaction garbled = append(5, newFragment("a", 3).toBuilder()
        .setInlineRowIds(ByteString.copyFrom(new byte[] {(byte) 0xff, 1})).build());
    assertThatThrownBy(() -> TransactionValidator.validate(garbled, stable)).hasMessageContaining("cannot be decoded");
    Transaction negativeSlice = append(5, newFragment("a", 3).toBuilder().setExternalRowIds(ExternalFile.newBuilder()
        .setPath("_rowids/x.bin").setOffset(-1).setSize(10)).build());
    assertThatThrownBy(() -> TransactionValidator.validate(negativeSlice, stable))
        .hasMessageContaining("offset or size out of range");
  }

  @Test
  void newIndicesMayNameOnlyFieldsOfTheSchemaAndFragmentsTheTableHadFromAVersionItHas() {
    IndexMetadata index = scalarIndex(1, "id_idx", 5, 0, 0, 2);
    assertThatCode(() -> TransactionValidator.validate(createIndex(index), LATEST)).doesNotThrowAnyException();
    // fragment 1 was deleted, but an index may still name it (Lance never shrinks bitmaps)
    assertThatCode(() -> TransactionValidator.validate(createIndex(scalarIndex(1, "id_idx", 5, 0, 0, 1, 2)), LATEST))
        .doesNotThrowAnyException();
    assertInvalid(createIndex(scalarIndex(1, "id_idx", 5, 0, 0, 3)), "covers fragment 3, which the table never had");
    assertInvalid(createIndex(scalarIndex(1, "id_idx", 5, 9, 0)), "covers field id 9");
    assertInvalid(createIndex(scalarIndex(1, "id_idx", 6, 0, 0)), "built from version 6");
    assertInvalid(createIndex(index.toBuilder().setFragmentBitmap(ByteString.copyFrom(new byte[] {1, 2, 3})).build()),
        "not a valid Roaring bitmap");
    assertInvalid(createIndex(index.toBuilder().addFiles(IndexFile.newBuilder().setPath("x.lance").setSizeBytes(-3))
        .build()), "size out of range");
  }

  private static Transaction createIndex(IndexMetadata index) {
    return txn(5).setCreateIndex(Transaction.CreateIndex.newBuilder().addNewIndices(index)).build();
  }
}
