package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.ctx;
import static dev.lancecommit.rules.Fixtures.fragment;
import static dev.lancecommit.rules.Fixtures.newFragment;
import static dev.lancecommit.rules.Fixtures.set;
import static dev.lancecommit.rules.Fixtures.txn;
import static dev.lancecommit.rules.Fixtures.unset;
import static dev.lancecommit.rules.Fixtures.updates;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.FormatFeatures;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Tables with the semantic-types flag (seed 001, Lance schema.md "Semantic Types"): how the flag is turned on, that
 * it stays on, and the schema rules a commit to such a table must follow. The bit is a deployment choice because the
 * specification has not assigned it yet.
 */
class SemanticTypesContractTest {
  private static final long BIT = 1L << 20;
  private static final FormatFeatures FEATURES = FormatFeatures.withSemanticTypesFlag(BIT);

  /** A legacy table naming layouts: 0 id, 1 name (large_string), 2 tag (dictionary), 3 price (decimal256), 4 pt. */
  private static final List<Field> LEGACY = List.of(
      field(0, -1, "id", "int64"),
      field(1, -1, "name", "large_string"),
      field(2, -1, "tag", "dict:string:int16:false"),
      field(3, -1, "price", "decimal:256:10:2"),
      extension(field(4, -1, "pt", "fixed_size_list:float:2"), "example.point"),
      field(5, 4, "item", "float"));

  @Test
  void theUpgradeIsAMetadataOnlyProjectThatKeepsEveryReadTypeAndSetsBothFlagWords() {
    TableState legacy = table(LEGACY, 0);
    TableState upgraded = commit(legacy, upgrade(legacy, canonical(LEGACY)));

    assertThat(upgraded.manifest().getReaderFeatureFlags() & BIT).isEqualTo(BIT);
    assertThat(upgraded.manifest().getWriterFeatureFlags() & BIT).isEqualTo(BIT);
    assertThat(upgraded.manifest().getFieldsList()).extracting(Field::getLogicalType)
        .containsExactly("int64", "string", "string", "decimal:10:2", "fixed_size_list:float:2", "float");
    assertThat(upgraded.manifest().getFieldsList()).extracting(SemanticTypes::effectiveEncoding)
        .containsExactlyElementsOf(LEGACY.stream().map(SemanticTypes::legacyEncoding).toList());
    assertThat(upgraded.manifest().getFragmentsList()).isEqualTo(legacy.manifest().getFragmentsList());
  }

  @Test
  void theUpgradeSchemaReplacesAStrayOutputEncodingThatALegacyTableNeverInterpreted() {
    List<Field> stray = new ArrayList<>(LEGACY);
    stray.set(0, encoded(stray.get(0), "utf8"));
    stray.set(1, encoded(stray.get(1), "utf8_view"));
    List<Field> canonical = SemanticTypes.canonicalSchema(stray);
    assertThat(canonical.get(0).getMetadataMap()).doesNotContainKey(SemanticTypes.OUTPUT_ENCODING_KEY);
    assertThat(SemanticTypes.effectiveEncoding(canonical.get(1))).isEqualTo("large_utf8");
    TableState upgraded = commit(table(stray, 0), upgrade(table(stray, 0), canonical));
    assertThat(upgraded.manifest().getFieldsList()).isEqualTo(canonical);
  }

  @Test
  void anUpgradeThatWouldChangeWhatAReadReturnsIsRefusedNamingTheField() {
    TableState legacy = table(LEGACY, 0);
    List<Field> forgotEncoding = new ArrayList<>(canonical(LEGACY));
    forgotEncoding.set(1, forgotEncoding.get(1).toBuilder().removeMetadata(SemanticTypes.OUTPUT_ENCODING_KEY).build());

    assertThatThrownBy(() -> commit(legacy, upgrade(legacy, forgotEncoding)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'name'")
        .hasMessageContaining(SemanticTypes.OUTPUT_ENCODING_KEY + "=large_utf8");
  }

  @Test
  void theUpgradeKeepsEveryFieldAndWritesOnlyCanonicalNames() {
    TableState legacy = table(LEGACY, 0);
    List<Field> dropped = canonical(LEGACY).subList(0, 4);
    assertThatThrownBy(() -> commit(legacy, upgrade(legacy, dropped)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("metadata-only");

    List<Field> aliasKept = new ArrayList<>(canonical(LEGACY));
    aliasKept.set(3, LEGACY.get(3));
    assertThatThrownBy(() -> commit(legacy, upgrade(legacy, aliasKept)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'price'")
        .hasMessageContaining("legacy alias")
        .hasMessageContaining("decimal:10:2 with lance-schema:output-encoding=decimal256");
  }

  @Test
  void enablingNeedsAConfiguredBitAProjectOrOverwriteAndALegacyTable() {
    TableState legacy = table(LEGACY, 0);
    Transaction upgrade = upgrade(legacy, canonical(LEGACY));
    assertThatThrownBy(() -> TransactionValidator.validate(upgrade, legacy, FormatFeatures.standard()))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("format.semantic-types.flag");

    Transaction onAppend = txn(1).setAppend(Transaction.Append.newBuilder().addFragments(newFragment("a", 3)))
        .putTransactionProperties(SemanticTypes.ENABLE_PROPERTY, SemanticTypes.ENABLE_VALUE).build();
    assertThatThrownBy(() -> TransactionValidator.validate(onAppend, legacy, FEATURES))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("not by Append");

    TableState flagged = table(canonical(LEGACY), BIT);
    assertThatThrownBy(() -> TransactionValidator.validate(upgrade(flagged, canonical(LEGACY)), flagged, FEATURES))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("already follows");

    Transaction wrongValue = upgrade.toBuilder()
        .putTransactionProperties(SemanticTypes.ENABLE_PROPERTY, "yes").build();
    assertThatThrownBy(() -> TransactionValidator.validate(wrongValue, legacy, FEATURES))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining("must be 'enable'");
  }

  @Test
  void onceSetTheFlagStaysThroughAppendsConfigChangesOverwritesAndRestoresOfOlderVersions() {
    TableState flagged = table(canonical(LEGACY), BIT);
    TableState appended = commit(flagged, txn(1).setAppend(
        Transaction.Append.newBuilder().addFragments(newFragment("b", 5))).build());
    TableState configured = commit(appended, txn(2).setUpdateConfig(Transaction.UpdateConfig.newBuilder()
        .setConfigUpdates(updates().addUpdateEntries(set("k", "v")))).build());
    TableState overwritten = commit(configured, txn(3).setOverwrite(Transaction.Overwrite.newBuilder()
        .addAllSchema(canonical(LEGACY)).addFragments(newFragment("c", 2))).build());
    for (TableState state : List.of(appended, configured, overwritten)) {
      assertThat(FEATURES.isSemanticTypesTable(state.manifest())).as("version %s", state.version()).isTrue();
    }

    TableState legacyVersion = table(LEGACY, 0);
    Transaction restore = txn(4).setRestore(Transaction.Restore.newBuilder().setVersion(1)).build();
    TableState restored = ManifestBuilder.buildRestore(overwritten, legacyVersion, restore, ctx(5).withFeatures(FEATURES));
    assertThat(FEATURES.isSemanticTypesTable(restored.manifest())).isTrue();
    assertThat(restored.manifest().getFieldsList()).isEqualTo(LEGACY);
  }

  @Test
  void aShallowCloneOfAFlaggedTableIsFlaggedToo() {
    TableState flagged = table(canonical(LEGACY), BIT);
    Transaction clone = txn(0).setClone(Transaction.Clone.newBuilder().setIsShallow(true).setRefVersion(1)
        .setRefPath("s3://bucket/source")).build();
    TableState cloned = ManifestBuilder.buildClone(flagged, clone, ctx(1).withFeatures(FEATURES));
    assertThat(FEATURES.isSemanticTypesTable(cloned.manifest())).isTrue();
    assertThatThrownBy(() -> ManifestBuilder.buildClone(flagged, clone, ctx(1)))
        .isInstanceOf(UnsupportedFeatureException.class);
  }

  @Test
  void aCoordinatorWithoutTheBitRefusesFlaggedTablesAndHalfSetManifestsAreInvalid() {
    TableState flagged = table(canonical(LEGACY), BIT);
    Transaction append = txn(1).setAppend(Transaction.Append.newBuilder().addFragments(newFragment("b", 5))).build();
    assertThatThrownBy(() -> TransactionValidator.validate(append, flagged, FormatFeatures.standard()))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining(Long.toString(BIT));

    Manifest half = flagged.manifest().toBuilder().setReaderFeatureFlags(flagged.manifest().getReaderFeatureFlags()
        & ~BIT).build();
    assertThatThrownBy(() -> FeatureFlags.ensureWritable(half, FEATURES))
        .isInstanceOf(UnsupportedFeatureException.class)
        .hasMessageContaining("only one of");
  }

  @Test
  void representationChangesAreCompatibleButValueDomainChangesAreNot() {
    TableState flagged = table(canonical(LEGACY), BIT);
    List<Field> relaid = new ArrayList<>(flagged.manifest().getFieldsList());
    relaid.set(1, encoded(relaid.get(1), "utf8_view"));
    relaid.set(3, encoded(relaid.get(3), "decimal128"));
    TableState next = commit(flagged, project(relaid));
    assertThat(SemanticTypes.effectiveEncoding(next.manifest().getFields(1))).isEqualTo("utf8_view");

    List<Field> widened = new ArrayList<>(flagged.manifest().getFieldsList());
    widened.set(3, widened.get(3).toBuilder().setLogicalType("decimal:12:2").build());
    assertThatThrownBy(() -> commit(flagged, project(widened)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("semantic type of field 'price'")
        .hasMessageContaining("decimal:10:2 to decimal:12:2");

    // The same layout change on a legacy table is a type change.
    List<Field> legacyRelaid = new ArrayList<>(LEGACY);
    legacyRelaid.set(1, legacyRelaid.get(1).toBuilder().setLogicalType("string").build());
    assertThatThrownBy(() -> commit(table(LEGACY, 0), project(legacyRelaid)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("large_string to string");
  }

  @Test
  void newFieldsUseCanonicalNamesAndOutputEncodingsTheirTypeAdmits() {
    TableState flagged = table(canonical(LEGACY), BIT);
    List<Field> withAlias = new ArrayList<>(flagged.manifest().getFieldsList());
    withAlias.add(field(6, -1, "note", "large_string"));
    assertThatThrownBy(() -> commit(flagged, project(withAlias)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'note'")
        .hasMessageContaining("string with lance-schema:output-encoding=large_utf8");

    List<Field> badEncoding = new ArrayList<>(flagged.manifest().getFieldsList());
    badEncoding.add(encoded(field(6, -1, "big", "decimal:40:2"), "decimal128"));
    assertThatThrownBy(() -> commit(flagged, project(badEncoding)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'big'")
        .hasMessageContaining("'decimal128' is not an output encoding of semantic type decimal:40:2");

    List<Field> dictionaryOfInts = new ArrayList<>(flagged.manifest().getFieldsList());
    dictionaryOfInts.add(field(6, -1, "codes", "dict:int32:int16:false"));
    assertThatThrownBy(() -> commit(flagged, project(dictionaryOfInts)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'codes'")
        .hasMessageContaining("only string and binary values may be dictionary encoded");

    List<Field> good = new ArrayList<>(flagged.manifest().getFieldsList());
    good.add(encoded(field(6, -1, "note", "string"), "large_utf8"));
    assertThatCode(() -> commit(flagged, project(good))).doesNotThrowAnyException();
  }

  @Test
  void fieldMetadataUpdatesMaySetValidEncodingsButNotDropAnExtension() {
    TableState flagged = table(canonical(LEGACY), BIT);
    TableState relaid = commit(flagged, fieldMetadata(1, set(SemanticTypes.OUTPUT_ENCODING_KEY, "dictionary:int8:utf8")));
    assertThat(SemanticTypes.effectiveEncoding(relaid.manifest().getFields(1))).isEqualTo("dictionary:int8:utf8");

    assertThatThrownBy(() -> commit(flagged, fieldMetadata(0, set(SemanticTypes.OUTPUT_ENCODING_KEY, "utf8"))))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'id'")
        .hasMessageContaining("not an output encoding of semantic type int64");

    assertThatThrownBy(() -> commit(flagged, fieldMetadata(4, unset(SemanticTypes.EXTENSION_NAME_KEY))))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("'pt'")
        .hasMessageContaining("example.point -> null");
  }

  @Test
  void anOverwriteMayCreateATableThatFollowsTheContractFromBirth() {
    Transaction create = Transaction.newBuilder().setUuid(java.util.UUID.randomUUID().toString())
        .putTransactionProperties(SemanticTypes.ENABLE_PROPERTY, SemanticTypes.ENABLE_VALUE)
        .setOverwrite(Transaction.Overwrite.newBuilder().addAllSchema(canonical(LEGACY))
            .addFragments(newFragment("a", 4)))
        .build();
    TransactionValidator.validate(create, null, FEATURES);
    TableState created = ManifestBuilder.build(null, create, Fixtures.createCtx(false).withFeatures(FEATURES));
    assertThat(FEATURES.isSemanticTypesTable(created.manifest())).isTrue();

    Transaction withAlias = create.toBuilder().setOverwrite(create.getOverwrite().toBuilder().clearSchema()
        .addAllSchema(LEGACY)).build();
    assertThatThrownBy(() -> ManifestBuilder.build(null, withAlias, Fixtures.createCtx(false).withFeatures(FEATURES)))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("legacy alias");
  }

  private static TableState commit(TableState current, Transaction txn) {
    TransactionValidator.validate(txn, current, FEATURES);
    return ManifestBuilder.build(current, txn, ctx(current.version() + 1).withFeatures(FEATURES));
  }

  private static Transaction upgrade(TableState current, List<Field> schema) {
    Transaction upgrade = SemanticTypes.upgradeTransaction(current.manifest(), java.util.UUID.randomUUID().toString());
    return upgrade.toBuilder().setProject(Transaction.Project.newBuilder().addAllSchema(schema)).build();
  }

  private static Transaction project(List<Field> schema) {
    return txn(1).setProject(Transaction.Project.newBuilder().addAllSchema(schema)).build();
  }

  private static Transaction fieldMetadata(int fieldId, Transaction.UpdateMapEntry entry) {
    return txn(1).setUpdateConfig(Transaction.UpdateConfig.newBuilder()
        .putFieldMetadataUpdates(fieldId, updates().addUpdateEntries(entry).build())).build();
  }

  private static List<Field> canonical(List<Field> legacy) {
    return SemanticTypes.canonicalSchema(legacy);
  }

  /** Version 1 of a table with two fragments holding every field, flags as Lance sets them plus {@code extra}. */
  private static TableState table(List<Field> schema, long extra) {
    Manifest.Builder manifest = Manifest.newBuilder().setVersion(1).addAllFields(schema).setMaxFragmentId(1)
        .addAllFragments(Arrays.asList(withFields(fragment(0, 10)), withFields(fragment(1, 10))))
        .setWriterVersion(Fixtures.OLD_WRITER)
        .setDataFormat(Manifest.DataStorageFormat.newBuilder().setFileFormat("lance").setVersion("2.1"));
    FeatureFlags.apply(manifest, false, true);
    manifest.setReaderFeatureFlags(manifest.getReaderFeatureFlags() | extra)
        .setWriterFeatureFlags(manifest.getWriterFeatureFlags() | extra);
    return new TableState(manifest.build(), List.of());
  }

  private static dev.lancecommit.format.pb.DataFragment withFields(dev.lancecommit.format.pb.DataFragment fragment) {
    return fragment.toBuilder().setFiles(0, Fixtures.file("f" + fragment.getId() + ".lance", 0, 1, 2, 3, 4, 5)).build();
  }

  private static Field field(int id, int parent, String name, String type) {
    return Fixtures.field(id, parent, name, type);
  }

  private static Field extension(Field field, String name) {
    return field.toBuilder().putMetadata(SemanticTypes.EXTENSION_NAME_KEY, ByteString.copyFromUtf8(name)).build();
  }

  private static Field encoded(Field field, String encoding) {
    return field.toBuilder().putMetadata(SemanticTypes.OUTPUT_ENCODING_KEY, ByteString.copyFromUtf8(encoding))
        .build();
  }
}
