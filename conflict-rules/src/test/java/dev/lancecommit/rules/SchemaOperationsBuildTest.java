package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/** Merge, Project and DataReplacement. */
class SchemaOperationsBuildTest {
  private static final Field EXTRA = field(4, -1, "extra", "int32");

  @Test
  void mergeAddsAColumnToEveryFragment() {
    TableState current = withIndices(table(2, 1, fragment(0, 5), fragment(1, 6)), scalarIndex(1, "id_idx", 1, 0, 0));
    current = new TableState(current.manifest().toBuilder()
        .putSchemaMetadata("kept", ByteString.copyFromUtf8("yes")).build(), current.indices());
    List<Field> schema = new ArrayList<>(SCHEMA);
    schema.add(EXTRA);
    Transaction merge = txn(2).setMerge(Transaction.Merge.newBuilder().addAllSchema(schema)
        .addFragments(fragment(0, 5).toBuilder().addFiles(file("extra0.lance", 4)))
        .addFragments(fragment(1, 6).toBuilder().addFiles(file("extra1.lance", 4)))).build();

    TableState next = ManifestBuilder.build(current, merge, ctx(3));

    assertThat(next.manifest().getFieldsList()).isEqualTo(schema);
    assertThat(next.manifest().getSchemaMetadataMap()).containsKey("kept");
    assertThat(next.manifest().getFragments(1).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("f1-6.lance", "extra1.lance");
    assertThat(next.indices()).isEqualTo(current.indices());
  }

  @Test
  void mergeMayNotLoseFragmentsOrChangeRowCounts() {
    TableState current = table(2, 1, fragment(0, 5), fragment(1, 6));
    Transaction lossy = txn(2).setMerge(Transaction.Merge.newBuilder().addAllSchema(SCHEMA)
        .addFragments(fragment(0, 5)).addFragments(fragment(2, 6))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, lossy, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("missing original fragments: [1]");
  }

  @Test
  void projectDropsFilesAndIndicesOfDroppedFieldsOnly() {
    DataFragment twoFiles = DataFragment.newBuilder().setId(0).setPhysicalRows(5)
        .addFiles(file("idname.lance", 0, 1)).addFiles(file("vec.lance", 2, 3)).build();
    IndexMetadata onVec = vectorIndex(1, "vec_idx", 1, 2, 0);
    IndexMetadata onId = scalarIndex(2, "id_idx", 1, 0, 0);
    TableState current = withIndices(table(2, 0, twoFiles), onVec, onId);
    current = new TableState(current.manifest().toBuilder()
        .putSchemaMetadata("kept", ByteString.copyFromUtf8("yes")).build(), current.indices());

    TableState next = ManifestBuilder.build(current, txn(2).setProject(Transaction.Project.newBuilder()
        .addAllSchema(SCHEMA.subList(0, 2))).build(), ctx(3));

    assertThat(next.manifest().getFieldsList()).isEqualTo(SCHEMA.subList(0, 2));
    assertThat(next.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("idname.lance");
    assertThat(next.indices()).containsExactly(onId);
    assertThat(next.manifest().getSchemaMetadataMap()).containsKey("kept");
  }

  @Test
  void dataReplacementSwapsTheMatchingFileOrAddsAnAllNullColumn() {
    DataFragment f0 = DataFragment.newBuilder().setId(0).setPhysicalRows(5)
        .addFiles(file("id.lance", 0)).addFiles(file("name.lance", 1)).build();
    DataFragment f1 = DataFragment.newBuilder().setId(1).setPhysicalRows(5).addFiles(file("id1.lance", 0)).build();
    TableState current = table(2, 1, f0, f1);
    Transaction replace = txn(2).setDataReplacement(Transaction.DataReplacement.newBuilder()
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(0)
            .setNewFile(file("name-new.lance", 1).toBuilder().setFileSizeBytes(77)))
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(1)
            .setNewFile(file("name1.lance", 1)))).build();

    TableState next = ManifestBuilder.build(current, replace, ctx(3));

    assertThat(next.manifest().getFragments(0).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("id.lance", "name-new.lance");
    assertThat(next.manifest().getFragments(0).getFiles(1).getFileSizeBytes()).isEqualTo(77);
    assertThat(next.manifest().getFragments(1).getFilesList()).extracting(DataFile::getPath)
        .containsExactly("id1.lance", "name1.lance");
  }

  @Test
  void dataReplacementThatChangesNothingOrMixesFieldsIsRefused() {
    DataFragment f0 = DataFragment.newBuilder().setId(0).setPhysicalRows(5).addFiles(file("idname.lance", 0, 1)).build();
    TableState current = table(2, 0, f0);
    Transaction misaligned = txn(2).setDataReplacement(Transaction.DataReplacement.newBuilder()
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(0)
            .setNewFile(file("name.lance", 1)))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, misaligned, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("no changes were made");
    Transaction mixed = txn(2).setDataReplacement(Transaction.DataReplacement.newBuilder()
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(0)
            .setNewFile(file("a.lance", 0, 1)))
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(0)
            .setNewFile(file("b.lance", 1)))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, mixed, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("same fields");
    Transaction missing = txn(2).setDataReplacement(Transaction.DataReplacement.newBuilder()
        .addReplacements(Transaction.DataReplacementGroup.newBuilder().setFragmentId(9)
            .setNewFile(file("a.lance", 0, 1)))).build();
    assertThatThrownBy(() -> ManifestBuilder.build(current, missing, ctx(3)))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("Fragment 9");
  }
}
