package dev.lancecommit.rules;

import static dev.lancecommit.rules.Fixtures.*;
import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import org.junit.jupiter.api.Test;

class CreateIndexBuildTest {

  @Test
  void newIndicesReplaceSameNameSegmentsAndRemovedUuidsAndKeepFragments() {
    IndexMetadata idOld = scalarIndex(1, "id_idx", 2, 0, 0);
    IndexMetadata nameIdx = scalarIndex(2, "name_idx", 2, 1, 0);
    IndexMetadata vecIdx = vectorIndex(3, "vec_idx", 2, 2, 0);
    TableState current = withIndices(table(3, 1, fragment(0, 5), fragment(1, 5)), idOld, nameIdx, vecIdx);
    IndexMetadata idNew = scalarIndex(4, "id_idx", 3, 0, 0, 1);

    Transaction createIndex = txn(3).setCreateIndex(Transaction.CreateIndex.newBuilder()
        .addNewIndices(idNew).addRemovedIndices(nameIdx)).build();
    TableState next = ManifestBuilder.build(current, createIndex, ctx(4));

    assertThat(next.indices()).containsExactly(vecIdx, idNew);
    assertThat(next.manifest().getFragmentsList()).isEqualTo(current.manifest().getFragmentsList());
    assertThat(next.manifest().getMaxFragmentId()).isEqualTo(1);
  }

  @Test
  void dropIndexIsACreateIndexWithOnlyRemovals() {
    IndexMetadata idIdx = scalarIndex(1, "id_idx", 2, 0, 0);
    TableState current = withIndices(table(3, 0, fragment(0, 5)), idIdx);
    Transaction drop = txn(3).setCreateIndex(Transaction.CreateIndex.newBuilder().addRemovedIndices(idIdx)).build();
    assertThat(ManifestBuilder.build(current, drop, ctx(4)).indices()).isEmpty();
  }
}
