package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class TransactionValidatorTest {
  private static final TableState LATEST = table(5, 2, fragment(0, 10), fragment(2, 10));

  private static void assertInvalid(Transaction txn, TableState latest, String message) {
    assertThatThrownBy(() -> TransactionValidator.validate(txn, latest))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(message);
  }

  @Test
  void aWellFormedAppendPasses() {
    assertThatCode(() -> TransactionValidator.validate(append(5, newFragment("a", 3)), LATEST))
        .doesNotThrowAnyException();
    assertThatCode(() -> TransactionValidator.validate(append(3, newFragment("a", 3)), LATEST))
        .doesNotThrowAnyException();
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "not-a-uuid", "123e4567e89b12d3a456426614174000", "../../etc/passwd",
      "123e4567-e89b-12d3-a456-4266141740000"})
  void theUuidMustBeAHyphenatedUuid(String uuid) {
    assertInvalid(append(5).toBuilder().setUuid(uuid).build(), LATEST, "uuid");
  }

  @Test
  void aTransactionWithoutAKnownOperationIsInvalid() {
    assertInvalid(txn(5).build(), LATEST, "carries no operation");
    assertInvalid(txn(5).setUserOperation(Transaction.UserOperation.getDefaultInstance()).build(), LATEST,
        "UserOperation");
  }

  @Test
  void readVersionMayNotBeAheadOfTheLatestVersion() {
    assertInvalid(append(6), LATEST, "read_version 6 is ahead of the latest version 5");
  }

  @Test
  void readVersionZeroIsOnlyForCreatingOverwrites() {
    assertInvalid(append(0, newFragment("a", 1)), LATEST, "read_version 0 is only valid");
    assertThatCode(() -> TransactionValidator.validate(overwrite(0, newFragment("a", 1)), LATEST))
        .doesNotThrowAnyException();
  }

  @Test
  void aTableWithoutVersionsAcceptsOnlyOverwriteOrClone() {
    assertInvalid(append(0, newFragment("a", 1)), null, "only Overwrite or Clone");
    assertInvalid(overwrite(3, newFragment("a", 1)), null, "read_version 3 is ahead of the latest version 0");
    assertThatCode(() -> TransactionValidator.validate(overwrite(0, newFragment("a", 1)), null))
        .doesNotThrowAnyException();
    Transaction clone = txn(7).setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefVersion(7)
        .setRefPath("s3://bucket/source")).build();
    assertThatCode(() -> TransactionValidator.validate(clone, null)).doesNotThrowAnyException();
    assertInvalid(clone, LATEST, "already exists");
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/abs/x.lance", "../x.lance", "a/../../x.lance", "a/..", "s3://bucket/x.lance",
      "file:/tmp/x.lance", "http://h/x.lance", "a\\b.lance", "C:x.lance", "a\u0000b.lance"})
  void dataFilePathsMustStayInsideTheTable(String path) {
    DataFragment escaping = DataFragment.newBuilder().setPhysicalRows(1)
        .addFiles(file("ok.lance", 0)).addFiles(file(path, 1)).build();
    assertInvalid(append(5, escaping), LATEST, "paths must be relative");
  }

  @Test
  void relativePathsWithDotsInNamesAreFine() {
    DataFragment dotted = DataFragment.newBuilder().setPhysicalRows(1)
        .addFiles(file("sub/dir/..x..lance", 0, 1, 2, 3)).build();
    assertThatCode(() -> TransactionValidator.validate(append(5, dotted), LATEST)).doesNotThrowAnyException();
  }

  @Test
  void externalRowIdAndIndexFilePathsAreCheckedToo() {
    DataFragment external = newFragment("a", 2).toBuilder()
        .setExternalCreatedAtVersions(ExternalFile.newBuilder().setPath("/etc/x")).build();
    assertInvalid(append(5, external), LATEST, "External version file path '/etc/x'");
    Transaction createIndex = txn(5).setCreateIndex(Transaction.CreateIndex.newBuilder()
        .addNewIndices(scalarIndex(1, "i", 5, 0, 0).toBuilder()
            .addFiles(IndexFile.newBuilder().setPath("../../other/_indices/x")))).build();
    assertInvalid(createIndex, LATEST, "Index file path");
  }

  @Test
  void baseIdsMustReferToAKnownBase() {
    DataFragment onBase = DataFragment.newBuilder().setPhysicalRows(1)
        .addFiles(file("x.lance", 0, 1, 2, 3).toBuilder().setBaseId(4)).build();
    assertInvalid(append(5, onBase), LATEST, "base path id 4");
    TableState withBase = new TableState(LATEST.manifest().toBuilder()
        .addBasePaths(BasePath.newBuilder().setId(4).setPath("s3://b/root")).build(), List.of());
    assertThatCode(() -> TransactionValidator.validate(append(5, onBase), withBase)).doesNotThrowAnyException();
    Transaction create = txn(0).setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(SCHEMA)
        .addInitialBases(BasePath.newBuilder().setId(4).setPath("s3://b/root")).addFragments(onBase)).build();
    assertThatCode(() -> TransactionValidator.validate(create, null)).doesNotThrowAnyException();
    DataFragment deletionOnBase = withDeletions(fragment(0, 10), 5, 1).toBuilder()
        .setDeletionFile(withDeletions(fragment(0, 10), 5, 1).getDeletionFile().toBuilder().setBaseId(9)).build();
    assertInvalid(delete(5, List.of(deletionOnBase)), LATEST, "base path id 9");
  }

  @Test
  void newFragmentsNeedARowCount() {
    TableState stable = stableTable(5, 0, 10, withRowIds(fragment(0, 10), 0));
    assertInvalid(append(5, newFragment("a", 0)), stable, "the table uses stable row ids and needs the row count");
    // 0 means unknown: Lance's own commit would count by reading the files; lance-core's Java API aborts on it
    assertInvalid(append(5, newFragment("a", 0)), LATEST, "does not state physical_rows");
  }

  @Test
  void newFilesMayOnlyNameFieldsOfTheSchema() {
    DataFragment unknownField = DataFragment.newBuilder().setPhysicalRows(1).addFiles(file("x.lance", 0, 42)).build();
    assertThatThrownBy(() -> TransactionValidator.validate(append(5, unknownField), LATEST))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("field id 42")
        .satisfies(e -> assertThat(((SchemaContractException) e).fieldPath()).isEqualTo("field id 42"));
    DataFragment minusOne = DataFragment.newBuilder().setPhysicalRows(1).addFiles(file("x.lance", -1)).build();
    assertThatThrownBy(() -> TransactionValidator.validate(append(5, minusOne), LATEST))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("field id -1");
    DataFragment noFields = DataFragment.newBuilder().setPhysicalRows(1)
        .addFiles(DataFile.newBuilder().setPath("x.lance")).build();
    assertInvalid(append(5, noFields), LATEST, "does not contain any fields");
    // the Overwrite's own schema is the one that counts
    Transaction overwrite = txn(5).setOverwrite(Transaction.Overwrite.newBuilder()
        .addSchema(field(7, -1, "seven", "int32"))
        .addFragments(DataFragment.newBuilder().setPhysicalRows(1).addFiles(file("s.lance", 7)))).build();
    assertThatCode(() -> TransactionValidator.validate(overwrite, LATEST)).doesNotThrowAnyException();
  }

  @Test
  void existingFilesOfUpdatedFragmentsMayKeepDroppedFields() {
    DataFragment withDropped = DataFragment.newBuilder().setId(0).setPhysicalRows(10)
        .addFiles(file("old.lance", 0, 1, 9)).build();
    TableState latest = table(5, 0, withDropped);
    assertThatCode(() -> TransactionValidator.validate(
        delete(5, List.of(withDeletions(withDropped, 5, 1))), latest)).doesNotThrowAnyException();
  }

  @Test
  void aNewFragmentIsNoneOfTheTablesAndMayNotNameTheDroppedFieldsOfFragmentZero() {
    DataFragment withDropped = DataFragment.newBuilder().setId(0).setPhysicalRows(10)
        .addFiles(file("old.lance", 0, 1, 9)).build();
    TableState latest = table(5, 0, withDropped);
    // id 0 until the builder numbers it: fragment 0's dropped field 9 is not the new fragment's to name
    DataFragment naming9 = DataFragment.newBuilder().setPhysicalRows(1).addFiles(file("new.lance", 0, 9)).build();
    assertThatThrownBy(() -> TransactionValidator.validate(append(5, naming9), latest))
        .isInstanceOf(SchemaContractException.class).hasMessageContaining("field id 9");
    Transaction update = txn(5).setUpdate(Transaction.Update.newBuilder()
        .addUpdatedFragments(withDeletions(withDropped, 5, 1)).addNewFragments(naming9)
        .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS)).build();
    assertThatThrownBy(() -> TransactionValidator.validate(update, latest))
        .isInstanceOf(SchemaContractException.class).hasMessageContaining("field id 9");
  }

  @Test
  void aDeleteKeepsTheDataFilesAndRowsOfTheFragmentsItUpdates() {
    assertThatCode(() -> TransactionValidator.validate(delete(5, List.of(withDeletions(fragment(2, 10), 5, 3))),
        LATEST)).doesNotThrowAnyException();
    // a fragment the table no longer has: the conflict rules judge it, not the validator
    assertThatCode(() -> TransactionValidator.validate(delete(5, List.of(withDeletions(fragment(7, 10), 5, 3))),
        LATEST)).doesNotThrowAnyException();
    // fragment 2 as a stale Dataset knows it: the writer's own file, which the table calls another id
    DataFragment stale = withDeletions(DataFragment.newBuilder().setId(2).setPhysicalRows(10)
        .addFiles(file("mine.lance", 0, 1, 2, 3)).build(), 5, 3);
    assertInvalid(delete(5, List.of(stale)), LATEST, "Delete updates fragment 2 as [mine.lance]");
    assertInvalid(delete(5, List.of(withDeletions(fragment(2, 10).toBuilder().setPhysicalRows(12).build(), 5, 3))),
        LATEST, "(12 rows)");
    // the same path under another base is another file
    TableState withBase = new TableState(LATEST.manifest().toBuilder()
        .addBasePaths(BasePath.newBuilder().setId(4).setPath("s3://b/root")).build(), List.of());
    DataFragment onBase = fragment(2, 10).toBuilder().setFiles(0, fragment(2, 10).getFiles(0).toBuilder().setBaseId(4))
        .build();
    assertInvalid(delete(5, List.of(withDeletions(onBase, 5, 3))), withBase, "changes only a fragment's deletion file");
  }

  @Test
  void anUpdateThatRewritesRowsKeepsTheDataFilesOfTheFragmentsItUpdates() {
    DataFragment stale = withDeletions(DataFragment.newBuilder().setId(2).setPhysicalRows(10)
        .addFiles(file("mine.lance", 0, 1, 2, 3)).build(), 5, 1);
    DataFragment moved = newFragment("moved", 1);
    Transaction.Update.Builder rows = Transaction.Update.newBuilder().addNewFragments(moved)
        .setUpdateMode(Transaction.UpdateMode.REWRITE_ROWS);

    assertThatCode(() -> TransactionValidator.validate(txn(5).setUpdate(rows.clone()
        .addUpdatedFragments(withDeletions(fragment(2, 10), 5, 1))).build(), LATEST)).doesNotThrowAnyException();
    assertInvalid(txn(5).setUpdate(rows.clone().addUpdatedFragments(stale)).build(), LATEST,
        "Update updates fragment 2 as [mine.lance]");
  }

  @Test
  void aRewriteReplacesTheFragmentsTheTableHasUnderThoseIds() {
    DataFragment compacted = newFragment("compacted", 20);
    assertThatCode(() -> TransactionValidator.validate(txn(5).setRewrite(Transaction.Rewrite.newBuilder()
        .addGroups(group(List.of(fragment(0, 10), fragment(2, 10)), List.of(compacted)))).build(), LATEST))
        .doesNotThrowAnyException();
    // old fragments named by id only, or gone from the table: left to the conflict rules
    assertThatCode(() -> TransactionValidator.validate(txn(5).setRewrite(Transaction.Rewrite.newBuilder()
        .addGroups(group(List.of(DataFragment.newBuilder().setId(0).build(), fragment(7, 10)), List.of(compacted))))
        .build(), LATEST)).doesNotThrowAnyException();
    // fragment 2 as a stale Dataset knows it: the writer's own file, which the table calls another id
    DataFragment stale = DataFragment.newBuilder().setId(2).setPhysicalRows(10)
        .addFiles(file("mine.lance", 0, 1, 2, 3)).build();
    assertInvalid(txn(5).setRewrite(Transaction.Rewrite.newBuilder()
            .addGroups(group(List.of(fragment(0, 10), stale), List.of(compacted)))).build(), LATEST,
        "Rewrite replaces fragment 2 as [mine.lance]");
    // the legacy single-group form too, and a changed row count
    assertInvalid(txn(5).setRewrite(Transaction.Rewrite.newBuilder()
            .addOldFragments(fragment(2, 12)).addNewFragments(compacted)).build(), LATEST, "(12 rows)");
  }

  @Test
  void duplicateFragmentIdsAreRefused() {
    DataFragment three = newFragment("a", 1).toBuilder().setId(3).build();
    assertInvalid(append(5, three, three.toBuilder().setFiles(0, file("b.lance", 0)).build()), LATEST,
        "two fragments with id 3");
    assertInvalid(append(5, newFragment("a", 1).toBuilder().setId(2).build()), LATEST, "two fragments with id 2");
    assertInvalid(delete(5, List.of(fragment(0, 10), fragment(0, 10))), LATEST, "lists fragment 0 twice");
  }

  @Test
  void unknownWriterFeatureFlagsRefuseTheCommit() {
    TableState newer = new TableState(LATEST.manifest().toBuilder().setWriterFeatureFlags(64).build(), List.of());
    assertThatThrownBy(() -> TransactionValidator.validate(append(5), newer))
        .isInstanceOf(UnsupportedFeatureException.class);
  }

  @Test
  void mixedUpdateConfigStylesAreRefused() {
    Transaction mixed = txn(5).setUpdateConfig(Transaction.UpdateConfig.newBuilder().addDeleteKeys("a")
        .setConfigUpdates(updates().addUpdateEntries(set("b", "1")))).build();
    assertInvalid(mixed, LATEST, "Cannot mix old and new style");
  }

  @Test
  void mergeMustKeepEveryFragmentWithItsRowCount() {
    Transaction.Merge.Builder merge = Transaction.Merge.newBuilder().addAllSchema(SCHEMA);
    assertInvalid(txn(5).setMerge(merge.clone().addFragments(fragment(0, 10)).addFragments(fragment(1, 10))).build(),
        LATEST, "missing original fragments: [2]");
    assertInvalid(txn(5).setMerge(merge.clone().addFragments(fragment(0, 10)).addFragments(fragment(2, 11))).build(),
        LATEST, "changed row count for fragment 2");
    assertInvalid(txn(5).setMerge(merge.clone().addFragments(fragment(0, 10))).build(), LATEST,
        "reduced fragment count from 2 to 1");
  }

  @Test
  void restoreMustNameAnExistingVersion() {
    assertInvalid(txn(5).setRestore(Transaction.Restore.newBuilder().setVersion(6)).build(), LATEST,
        "Cannot restore version 6");
    assertInvalid(txn(5).setRestore(Transaction.Restore.newBuilder().setVersion(0)).build(), LATEST,
        "Cannot restore version 0");
  }

  @Test
  void overwriteSchemasMustBeWellFormed() {
    Transaction noSchema = txn(5).setOverwrite(Transaction.Overwrite.newBuilder()).build();
    assertInvalid(noSchema, LATEST, "Overwrite carries no schema");
    Transaction orphan = txn(5).setOverwrite(Transaction.Overwrite.newBuilder()
        .addSchema(field(1, 0, "child", "int32"))).build();
    assertInvalid(orphan, LATEST, "names parent 0");
    Transaction twice = txn(5).setOverwrite(Transaction.Overwrite.newBuilder()
        .addSchema(field(1, -1, "a", "int32")).addSchema(field(1, -1, "b", "int32"))).build();
    assertInvalid(twice, LATEST, "two fields with id 1");
  }

  @Test
  void rewrittenIndicesNeedTheirUuidsAndDetails() {
    Transaction rewrite = txn(5).setRewrite(Transaction.Rewrite.newBuilder()
        .addGroups(group(List.of(fragment(0, 10)), List.of(newFragment("c", 10))))
        .addRewrittenIndices(Transaction.RewrittenIndex.newBuilder().setOldId(uuid(1)).setNewId(uuid(2)))).build();
    assertInvalid(rewrite, LATEST, "new_index_details is a required field");
  }
}
