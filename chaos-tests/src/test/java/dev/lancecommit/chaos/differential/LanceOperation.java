package dev.lancecommit.chaos.differential;

import static dev.lancecommit.chaos.differential.BaseTable.READ_VERSION;

import dev.lancecommit.testing.lance.LanceTables;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.stream.LongStream;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.compaction.Compaction;
import org.lance.compaction.CompactionOptions;
import org.lance.compaction.CompactionPlan;
import org.lance.compaction.CompactionTask;
import org.lance.compaction.RewriteResult;
import org.lance.fragment.FragmentUpdateResult;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.memwal.InitializeMemWalParams;
import org.lance.merge.MergeInsertParams;
import org.lance.operation.Append;
import org.lance.operation.DataReplacement;
import org.lance.operation.Delete;
import org.lance.operation.Overwrite;
import org.lance.operation.ReserveFragments;
import org.lance.operation.Restore;
import org.lance.operation.Rewrite;
import org.lance.operation.RewriteGroup;
import org.lance.operation.Update;
import org.lance.operation.UpdateConfig;
import org.lance.operation.UpdateMap;
import org.lance.schema.SqlExpressions;

/**
 * Every operation lance-core 7.0.0's Java API can produce on an existing table, each made the way a Lance user
 * makes it: a {@code Dataset} method that commits by itself, or files written with lance-core plus an
 * {@code org.lance.operation} committed with {@code CommitBuilder}. {@link #perform} runs it on a scratch copy of the
 * {@link BaseTable} at {@link BaseTable#READ_VERSION}; the transaction Lance records there is the operation.
 *
 * <p>Not producible through lance-core 7.0.0's Java API, so not covered: UpdateBases (only initial bases of a new
 * table), Clone (only as a new table via {@code shallowClone}), UpdateMemWalState (MemWAL setup is a CreateIndex, see
 * {@link #MEM_WAL_INDEX}), DataOverlay, UserOperation.
 */
public enum LanceOperation {
  APPEND("App", "Append: a new fragment of 5 rows") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, Append.builder().fragments(t.writeRows(slot.idBase(), 5)).build());
    }
  },
  DELETE_ROWS("DelR", "Delete: 2 rows of fragment 0 (first: offsets 0,1; second: 2,3), a new deletion file") {
    @Override
    void perform(LanceTables t, Slot slot) {
      List<Integer> offsets = slot == Slot.FIRST ? List.of(0, 1) : List.of(2, 3);
      try (Dataset ds = t.open(READ_VERSION)) {
        FragmentMetadata updated = ds.getFragment(0).deleteRows(offsets);
        t.commitWithLance(READ_VERSION, Delete.builder()
            .updatedFragments(List.of(updated))
            .deletedFragmentIds(List.of())
            .predicate("id IN (" + offsets.get(0) + ", " + offsets.get(1) + ")")
            .build());
      }
    }
  },
  DELETE_FRAGMENT("DelF", "Delete: every row of fragment 2 (deleted_fragment_ids = [2])") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, Delete.builder()
          .updatedFragments(List.of())
          .deletedFragmentIds(List.of(2L))
          .predicate("id >= 50")
          .build());
    }
  },
  OVERWRITE("Ovw", "Overwrite: 5 new rows, same schema") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, Overwrite.builder()
          .fragments(t.writeRows(slot.idBase() + 500, 5))
          .schema(LanceTables.ROW_SCHEMA)
          .build());
    }
  },
  OVERWRITE_CONFIG("OvwC", "Overwrite with config_upsert_values {shared.k}") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, Overwrite.builder()
          .fragments(t.writeRows(slot.idBase() + 600, 5))
          .schema(LanceTables.ROW_SCHEMA)
          .configUpsertValues(Map.of("shared.k", "ovw" + slot.label()))
          .build());
    }
  },
  CREATE_INDEX("CrI", "CreateIndex: BTREE 'id_idx' on id (Dataset.createIndex; both slots use the same name)") {
    @Override
    void perform(LanceTables t, Slot slot) {
      try (Dataset ds = t.open(READ_VERSION)) {
        ds.createIndex(List.of("id"), IndexType.BTREE, Optional.of("id_idx"),
            IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build(), true);
      }
    }
  },
  MEM_WAL_INDEX("MWal", "CreateIndex: the MemWAL system index (__lance_mem_wal) via Dataset.initializeMemWal") {
    @Override
    void perform(LanceTables t, Slot slot) {
      try (Dataset ds = t.open(READ_VERSION)) {
        ds.initializeMemWal(new InitializeMemWalParams().withUnsharded());
      }
    }
  },
  REWRITE("Rwr", "Rewrite: Lance's compaction planner merges fragments 1 and 2 into one") {
    @Override
    void perform(LanceTables t, Slot slot) {
      CompactionOptions options = CompactionOptions.builder().withTargetRowsPerFragment(30).build();
      List<RewriteGroup> groups = new ArrayList<>();
      try (Dataset ds = t.open(READ_VERSION)) {
        CompactionPlan plan = Compaction.planCompaction(ds, options);
        for (CompactionTask task : plan.getCompactionTasks()) {
          RewriteResult result = task.execute(ds);
          groups.add(RewriteGroup.builder()
              .oldFragments(result.getOriginalFragments())
              .newFragments(result.getNewFragments())
              .build());
        }
      }
      if (groups.size() != 1 || groups.get(0).oldFragments().size() != 2) {
        throw new IllegalStateException("compaction planned " + groups + ", expected fragments 1 and 2 in one group");
      }
      t.commitWithLance(READ_VERSION, Rewrite.builder().groups(groups).build());
    }
  },
  RESERVE_FRAGMENTS("Rsv", "ReserveFragments: 2 ids") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, ReserveFragments.builder().numFragments(2).build());
    }
  },
  CONFIG_UPSERT("CfgU", "UpdateConfig: upsert config shared.k") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, UpdateConfig.builder()
          .configUpdates(UpdateMap.builder().updates(Map.of("shared.k", "cfg" + slot.label())).replace(false).build())
          .build());
    }
  },
  CONFIG_DELETE("CfgD", "UpdateConfig: delete config key base.k") {
    @Override
    void perform(LanceTables t, Slot slot) {
      Map<String, String> delete = new HashMap<>();
      delete.put("base.k", null);
      t.commitWithLance(READ_VERSION, UpdateConfig.builder()
          .configUpdates(UpdateMap.builder().updates(delete).replace(false).build())
          .build());
    }
  },
  TABLE_METADATA("TblM", "UpdateConfig: upsert table metadata owner") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, UpdateConfig.builder()
          .tableMetadataUpdates(UpdateMap.builder().updates(Map.of("owner", "w" + slot.label())).replace(false).build())
          .build());
    }
  },
  SCHEMA_METADATA("SchM", "UpdateConfig: upsert schema metadata schema.k") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, UpdateConfig.builder()
          .schemaMetadataUpdates(UpdateMap.builder().updates(Map.of("schema.k", "s" + slot.label())).replace(false)
              .build())
          .build());
    }
  },
  FIELD_METADATA("FldM", "UpdateConfig: upsert metadata of field 1 (value)") {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, UpdateConfig.builder()
          .fieldMetadataUpdates(Map.of(1, UpdateMap.builder().updates(Map.of("field.k", "f" + slot.label()))
              .replace(false).build()))
          .build());
    }
  },
  // The added column must be nullable: lance-core 7.0.0 commits an Append next to a Merge that added a NOT NULL
  // column, and scanning the result then aborts the JVM (Rust panic "declared as non-nullable but contains null
  // values" in a function that cannot unwind).
  MERGE("Mrg", "Merge: Dataset.addColumns(SQL 'nullif(id * 2, -1)') adds a nullable column") {
    @Override
    void perform(LanceTables t, Slot slot) {
      try (Dataset ds = t.open(READ_VERSION)) {
        ds.addColumns(new SqlExpressions.Builder().withExpression("added" + slot.label(), "nullif(id * 2, -1)").build(),
            Optional.empty());
      }
    }
  },
  PROJECT("Prj", "Project: Dataset.dropColumns(value)") {
    @Override
    void perform(LanceTables t, Slot slot) {
      try (Dataset ds = t.open(READ_VERSION)) {
        ds.dropColumns(List.of("value"));
      }
    }
  },
  UPDATE_COLUMNS("UpdC", "Update (RewriteColumns): Fragment.updateColumns rewrites value of ids 40,41 in fragment 1") {
    @Override
    void perform(LanceTables t, Slot slot) {
      try (Dataset ds = t.open(READ_VERSION);
          VectorSchemaRoot rows = TestRows.root(t.allocator(), List.of(40L, 41L), id -> "u" + slot.label() + "-" + id);
          ArrowArrayStream stream = TestRows.stream(t.allocator(), rows)) {
        FragmentUpdateResult result = ds.getFragment(1).updateColumns(stream, "id", "id");
        t.commitWithLance(READ_VERSION, Update.builder()
            .updatedFragments(List.of(result.getUpdatedFragment()))
            .removedFragmentIds(List.of())
            .newFragments(List.of())
            .fieldsModified(result.getFieldsModified())
            .updateMode(Optional.of(Update.UpdateMode.RewriteColumns))
            .build());
      }
    }
  },
  UPDATE_ROWS("UpdR", "Update (RewriteRows): Dataset.mergeInsert updates 2 rows of fragment 0") {
    @Override
    void perform(LanceTables t, Slot slot) {
      List<Long> ids = slot == Slot.FIRST ? List.of(5L, 6L) : List.of(7L, 8L);
      try (Dataset ds = t.open(READ_VERSION);
          VectorSchemaRoot rows = TestRows.root(t.allocator(), ids, id -> "m" + slot.label() + "-" + id);
          ArrowArrayStream stream = TestRows.stream(t.allocator(), rows)) {
        ds.mergeInsert(new MergeInsertParams(List.of("id")).withMatchedUpdateAll()
            .withNotMatched(MergeInsertParams.WhenNotMatched.DoNothing), stream).dataset().close();
      }
    }
  },
  DATA_REPLACEMENT("DRp", "DataReplacement: fragment 2's data file replaced by one with new values") {
    @Override
    void perform(LanceTables t, Slot slot) {
      List<Long> ids = LongStream.range(50, 60).boxed().toList();
      try (VectorSchemaRoot rows = TestRows.root(t.allocator(), ids, id -> "r" + slot.label() + "-" + id)) {
        List<FragmentMetadata> written = Fragment.write().datasetUri(t.uri()).allocator(t.allocator()).data(rows)
            .execute();
        t.commitWithLance(READ_VERSION, DataReplacement.builder()
            .replacements(List.of(new DataReplacement.DataReplacementGroup(2, written.get(0).getFiles().get(0))))
            .build());
      }
    }
  },
  RESTORE("Rst", "Restore: version " + BaseTable.RESTORE_TARGET) {
    @Override
    void perform(LanceTables t, Slot slot) {
      t.commitWithLance(READ_VERSION, Restore.builder().version(BaseTable.RESTORE_TARGET).build());
    }
  };

  private final String abbreviation;
  private final String description;

  LanceOperation(String abbreviation, String description) {
    this.abbreviation = abbreviation;
    this.description = description;
  }

  /** Column label in the agreement matrix. */
  public String abbreviation() {
    return abbreviation;
  }

  public String description() {
    return description;
  }

  /** Commits this operation with stock Lance on {@code scratch}, whose latest version is the read version. */
  abstract void perform(LanceTables scratch, Slot slot);
}
