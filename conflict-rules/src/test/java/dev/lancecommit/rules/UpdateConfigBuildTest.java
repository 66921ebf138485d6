package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.Map;
import org.junit.jupiter.api.Test;

class UpdateConfigBuildTest {
  private static final TableState CURRENT = current();

  private static TableState current() {
    TableState t = table(3, 0, fragment(0, 1));
    Manifest m = t.manifest().toBuilder()
        .putConfig("a", "1").putConfig("b", "2")
        .putTableMetadata("owner", "x")
        .putSchemaMetadata("s", ByteString.copyFromUtf8("old"))
        .setFields(1, t.manifest().getFields(1).toBuilder().putMetadata("f", ByteString.copyFromUtf8("old")))
        .build();
    return new TableState(m, t.indices());
  }

  private static TableState apply(Transaction.UpdateConfig.Builder update) {
    return ManifestBuilder.build(CURRENT, txn(3).setUpdateConfig(update).build(), ctx(4));
  }

  @Test
  void incrementalUpdatesUpsertValuedEntriesAndDeleteBareKeys() {
    TableState next = apply(Transaction.UpdateConfig.newBuilder()
        .setConfigUpdates(updates().addUpdateEntries(set("b", "20")).addUpdateEntries(set("c", "3"))
            .addUpdateEntries(unset("a")))
        .setTableMetadataUpdates(updates().addUpdateEntries(set("team", "y"))));
    assertThat(next.manifest().getConfigMap()).containsOnly(Map.entry("b", "20"), Map.entry("c", "3"));
    assertThat(next.manifest().getTableMetadataMap()).containsOnly(Map.entry("owner", "x"), Map.entry("team", "y"));
    assertThat(next.manifest().getFragmentsList()).isEqualTo(CURRENT.manifest().getFragmentsList());
    assertThat(next.manifest().getWriterFeatureFlags() & FeatureFlags.TABLE_CONFIG).isNotZero();
  }

  @Test
  void replaceKeepsOnlyTheValuedEntries() {
    TableState next = apply(Transaction.UpdateConfig.newBuilder()
        .setConfigUpdates(updates().setReplace(true).addUpdateEntries(set("z", "9")).addUpdateEntries(unset("b"))));
    assertThat(next.manifest().getConfigMap()).containsOnly(Map.entry("z", "9"));
  }

  @Test
  void removingTheLastConfigKeyClearsTheConfigFlag() {
    TableState next = apply(Transaction.UpdateConfig.newBuilder()
        .setConfigUpdates(updates().setReplace(true)));
    assertThat(next.manifest().getConfigMap()).isEmpty();
    assertThat(next.manifest().getWriterFeatureFlags() & FeatureFlags.TABLE_CONFIG).isZero();
  }

  @Test
  void schemaAndFieldMetadataAreUpdated() {
    TableState next = apply(Transaction.UpdateConfig.newBuilder()
        .setSchemaMetadataUpdates(updates().addUpdateEntries(set("s", "new")).addUpdateEntries(set("t", "2")))
        .putFieldMetadataUpdates(1, updates().addUpdateEntries(unset("f")).addUpdateEntries(set("g", "v")).build())
        .putFieldMetadataUpdates(3, updates().addUpdateEntries(set("nested", "yes")).build()));
    assertThat(next.manifest().getSchemaMetadataMap()).containsOnly(
        Map.entry("s", ByteString.copyFromUtf8("new")), Map.entry("t", ByteString.copyFromUtf8("2")));
    assertThat(next.manifest().getFields(1).getMetadataMap()).containsOnly(Map.entry("g", ByteString.copyFromUtf8("v")));
    assertThat(next.manifest().getFields(3).getMetadataMap())
        .containsOnly(Map.entry("nested", ByteString.copyFromUtf8("yes")));
    assertThat(next.manifest().getFields(0)).isEqualTo(CURRENT.manifest().getFields(0));
  }

  @Test
  void anUnknownFieldIdIsRefused() {
    assertThatThrownBy(() -> apply(Transaction.UpdateConfig.newBuilder()
        .putFieldMetadataUpdates(77, updates().addUpdateEntries(set("k", "v")).build())))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessage("Field with id 77 does not exist");
  }

  @Test
  void theOldStyleIsTranslated() {
    TableState next = apply(Transaction.UpdateConfig.newBuilder()
        .putUpsertValues("b", "22").addDeleteKeys("a")
        .putSchemaMetadata("only", "this")
        .putFieldMetadata(1, Transaction.FieldMetadataUpdate.newBuilder().putMetadata("h", "1").build()));
    assertThat(next.manifest().getConfigMap()).containsOnly(Map.entry("b", "22"));
    assertThat(next.manifest().getSchemaMetadataMap()).containsOnly(Map.entry("only", ByteString.copyFromUtf8("this")));
    assertThat(next.manifest().getFields(1).getMetadataMap()).containsOnly(Map.entry("h", ByteString.copyFromUtf8("1")));
  }

  @Test
  void mixingStylesIsRefused() {
    assertThatThrownBy(() -> apply(Transaction.UpdateConfig.newBuilder()
        .putUpsertValues("b", "22").setTableMetadataUpdates(updates().addUpdateEntries(set("k", "v")))))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessage("Cannot mix old and new style UpdateConfig fields");
  }
}
