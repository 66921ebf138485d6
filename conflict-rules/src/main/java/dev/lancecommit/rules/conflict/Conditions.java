package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.COMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.INCOMPATIBLE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.REBASE;
import static dev.lancecommit.rules.conflict.ConflictOutcome.Kind.RETRYABLE;

import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.EnumSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * The named conditions of the matrix. Ids from the reference (§5) keep their names (k1 k2 k3 f1 i1 i2 i3 r1 d1 m1 m2
 * m3 b1); "o1" is the reference's "R if overlap" and "du" its D/U-rebase rule; k4 i4 d2 n1 s1 p1 w1 w2 w3 are the
 * 2026 changes (§7). m1..m3 apply to Nov-2025 MemWAL entries and w1 to 2026 ones: the matrix's "m1/w1" cells pick
 * one by the entries' wire shape ({@link GenerationDispatch}).
 */
final class Conditions {
  private Conditions() {}

  private static final EnumSet<Kind> C_R = EnumSet.of(COMPATIBLE, RETRYABLE);
  private static final EnumSet<Kind> C_X = EnumSet.of(COMPATIBLE, INCOMPATIBLE);

  static final ConflictCondition O1 = new SimpleCondition("o1",
      "Fragment overlap. R when a fragment ours modifies was touched by the committed transaction, else C. Ours"
          + " modifies (Lance's modified_fragment_ids): Delete/Update -> updated and deleted/removed fragment ids;"
          + " Rewrite -> every group's old fragment ids; DataReplacement -> replaced fragment ids; Merge -> the ids of"
          + " its fragment list; DataOverlay -> overlaid fragment ids. The committed transaction touched: Delete/Update"
          + " -> updated and removed ids; Rewrite -> its groups' old ids; DataReplacement -> replaced ids.",
      C_R, true, FragmentOverlap::o1);

  static final ConflictCondition DU = new SimpleCondition("du",
      "D/U-rebase rule (ours Delete or Update vs a committed Delete or Update). No fragment overlap (as in o1) -> C."
          + " Overlap and ours has no updated fragments (it only removes whole fragments) -> R. Overlap and no"
          + " affected rows supplied -> R. Overlap and the fragments as of our read version not supplied, or lacking an overlapping fragment -> R. Then, for"
          + " each fragment the committed transaction updated that ours modifies and that existed at our read version:"
          + " data files differ from the read version -> R (a file size of 0, meaning unknown, matches any size);"
          + " deletion file differs -> that fragment needs its deletion vector rebased. Any committed removed fragment"
          + " that ours modifies and that existed at our read version -> R. Otherwise REBASE naming the fragments whose"
          + " deletion vectors must be merged, or C when none. Rebasing (Lance's TransactionRebase::finish, done by the"
          + " coordinator with I/O): read the current deletion vector of each such fragment; if it intersects our"
          + " affected rows -> R (both modified the same rows); else merged = current OR affected; a fragment whose"
          + " merged vector covers all physical rows moves to our deleted/removed ids, the others get a new deletion"
          + " file (read_version = latest version); read_version := latest version.",
      EnumSet.of(COMPATIBLE, REBASE, RETRYABLE), false, DeleteUpdateRebase::du);

  static final ConflictCondition K1 = new SimpleCondition("k1",
      "Config keys (Overwrite vs UpdateConfig). X when upsert_key_conflict, else C. upsert_key_conflict(a, b): upsert"
          + " keys are Overwrite.config_upsert_values keys or UpdateConfig config entries with a value (deprecated"
          + " upsert_values), delete keys are UpdateConfig config entries without a value (deprecated delete_keys); a"
          + " conflict when a key one side upserts is upserted or deleted by the other. Only the config map counts."
          + " Addition to Lance: an UpdateConfig that replaces the whole config map conflicts with any config change of"
          + " the other side. Lance (Nov-2025) decodes Overwrite.config_upsert_values inverted, so it never fires this"
          + " across processes; this build reads the protobuf as written (the 2026 behaviour).",
      C_X, false, ConfigKeys::k1);

  static final ConflictCondition K2 = new SimpleCondition("k2",
      "UpdateConfig vs Overwrite. X when ours updates schema metadata (schema_metadata_updates present, or deprecated"
          + " schema_metadata non-empty), or updates any field's metadata, or upsert_key_conflict (k1); else C.",
      C_X, false, ConfigKeys::k2);

  static final ConflictCondition K3 = new SimpleCondition("k3",
      "UpdateConfig vs UpdateConfig. X when upsert_key_conflict (k1), or both update schema metadata, or both update"
          + " the metadata of the same field id, or [2026, PR #6667] both update table metadata and either replaces it"
          + " or both touch the same table-metadata key; else C. (PR #6656, last-writer-wins, was closed unmerged.)",
      C_X, true, ConfigKeys::k3);

  static final ConflictCondition K4 = new SimpleCondition("k4",
      "[2026, PR #6014] Overwrite vs Overwrite. X when upsert_key_conflict (k1), else R: the writer decides whether"
          + " its overwrite should still replace the one that landed first. (Nov-2025 answered C.)",
      EnumSet.of(RETRYABLE, INCOMPATIBLE), true, ConfigKeys::k4);

  static final ConflictCondition F1 = new SimpleCondition("f1",
      "Index names (CreateIndex vs CreateIndex), 2026 rules. R when both publish a fragment-reuse index"
          + " (__lance_frag_reuse), both publish a MemWAL index (__lance_mem_wal), both publish a regular index of the"
          + " same name, one side adds a segment to a name it did not remove while the other removed that name, or both"
          + " removed the same source segment (uuid) and either publishes under that segment's name; else C. (Nov-2025"
          + " answered R only for two fragment-reuse indices.)",
      C_R, true, IndexRules::f1);

  static final ConflictCondition I1 = new SimpleCondition("i1",
      "CreateIndex vs Rewrite. R when one of our new indices has no fragment bitmap, or the rewrite's old fragments"
          + " include a fragment our new indices cover; else C. (Lance's branch for a Rewrite carrying a fragment-reuse"
          + " index never applies: that index is not part of the Rewrite protobuf.)",
      C_R, false, IndexRules::i1);

  static final ConflictCondition I2 = new SimpleCondition("i2",
      "CreateIndex with DataReplacement, either order. R when a replacement's new_file.fields include a field of the"
          + " created indices; else C.",
      C_R, true, FieldOverlap::i2);

  static final ConflictCondition I3 = new SimpleCondition("i3",
      "Rewrite vs CreateIndex. When the committed CreateIndex publishes a fragment-reuse index: X unless it has"
          + " exactly one new and one removed index, then C. Otherwise R when one of its new indices has no fragment"
          + " bitmap or covers one of our old fragments; else C. (Our Rewrite never carries a fragment-reuse index in"
          + " protobuf, so Lance's rebase of our own one does not arise.)",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), false, IndexRules::i3);

  static final ConflictCondition I4 = new SimpleCondition("i4",
      "[2026] CreateIndex vs Update. Lance 2026 prunes updated fragments from our new indices' bitmaps when the"
          + " Update rewrote an indexed field; this build does not rebase indices, so that case is R: a new index"
          + " covers a field in the Update's fields_modified and its fragment bitmap is unknown or contains a fragment"
          + " the Update rewrote in place. Else C. (Nov-2025 answered C and could leave stale index entries.)",
      C_R, false, IndexRules::i4);

  static final ConflictCondition R1 = new SimpleCondition("r1",
      "Rewrite vs Rewrite. R when both rewrite a common old fragment; else C. (Lance also answers R when both carry"
          + " fragment-reuse indices, which are not in the protobuf.)",
      C_R, true, FragmentOverlap::r1);

  static final ConflictCondition D1 = new SimpleCondition("d1",
      "DataReplacement vs DataReplacement. R when both replace a common field of the same fragment; else C.",
      C_R, true, FieldOverlap::d1);

  static final ConflictCondition D2 = new SimpleCondition("d2",
      "[2026] DataReplacement vs Delete/Update/Project. X when the Delete or Update removed a target fragment whole,"
          + " or the Project dropped a replaced field (id >= 0 not in its schema); R when an Update that rewrote a"
          + " target fragment in place also moved rows out (REWRITE_ROWS with new fragments) or rewrote a replaced"
          + " field (fields_modified); else C. (Nov-2025 answered C.)",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), false, FieldOverlap::d2);

  static final ConflictCondition M1 = new SimpleCondition("m1",
      "Nov-2025 MemWAL ids (Update vs UpdateMemWalState). C when ours merges no MemWAL. X when the committed added or"
          + " updated MemWALs contain the id (region, generation) ours merges, or either side lists more than one"
          + " MemWAL. The raw mem_wal_to_merge / added / updated bytes are read as Nov-2025 MemWalIndexDetails.MemWal;"
          + " entries that do not parse cleanly -> R. Else C.",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), false, MemWalIds::m1);

  static final ConflictCondition M2 = new SimpleCondition("m2",
      "Nov-2025 UpdateMemWalState vs Update. C when the committed Update merged a MemWAL (mem_wal_to_merge present),"
          + " else X.",
      C_X, false, MemWalIds::m2);

  static final ConflictCondition M3 = new SimpleCondition("m3",
      "Nov-2025 UpdateMemWalState vs UpdateMemWalState. C when either side has no added and no updated MemWAL (trim"
          + " only); X when an added/updated MemWAL of one side has the id of an added/updated MemWAL of the other, or"
          + " either list holds more than one MemWAL; entries that are not Nov-2025 MemWals -> R; else C.",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), true, MemWalIds::m3);

  static final ConflictCondition W1 = new SimpleCondition("w1",
      "[2026] MemWAL shard + generation (Update vs UpdateMemWalState, UpdateMemWalState vs Update or"
          + " UpdateMemWalState). Each side's compacted SSTables (Update.compacted_sstables, field 5;"
          + " UpdateMemWalState.compacted_sstables, field 1) are (shard uuid, generation) pairs. For a shard both"
          + " compact: X when the committed generation is >= ours (that SSTable is already compacted or superseded),"
          + " R when it is lower (re-run on the new state); no common shard (or either side compacts none) -> C. Lance"
          + " answers for the first common shard it meets; here an X on any shard wins. The reason names the shard and"
          + " both generations. Used through the m/w cells: Nov-2025 entries go to m1/m2/m3, 2026 ones here; entries"
          + " that fit both generations (a MemWal holding only a 16-character region and generation 0) are tried both"
          + " ways, and disagreement, sides of different generations or unreadable entries -> R.",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), false, MemWalShards::w1);

  static final ConflictCondition W2 = new SimpleCondition("w2",
      "[2026] CreateIndex vs UpdateMemWalState. X, as in Nov-2025, unless our new indices include the MemWAL index"
          + " (__lance_mem_wal) and the committed UpdateMemWalState is not Nov-2025: Lance 2026 then merges the"
          + " committed compacted SSTables into our MemWAL index; this build does not rebase indices, so R.",
      EnumSet.of(RETRYABLE, INCOMPATIBLE), false, MemWalShards::w2);

  static final ConflictCondition W3 = new SimpleCondition("w3",
      "[2026] UpdateMemWalState vs CreateIndex. C (as in Nov-2025) unless the committed CreateIndex publishes a"
          + " 2026 MemWAL index (__lance_mem_wal) and ours is a 2026 UpdateMemWalState: then w1 between the compacted"
          + " SSTables recorded in that index's details and ours. Generations that cannot be told apart and disagree,"
          + " or differ between the sides, -> R.",
      EnumSet.of(COMPATIBLE, RETRYABLE, INCOMPATIBLE), false, MemWalShards::w3);

  static final ConflictCondition B1 = new SimpleCondition("b1",
      "Base paths (UpdateBases vs UpdateBases). X when a new base of ours and a committed new base have the same"
          + " non-zero id, the same name (both named), or the same path; else C.",
      C_X, true, BasePaths::b1);

  static final ConflictCondition N1 = new SimpleCondition("n1",
      "[2026] Nullability pre-check. R when one side is a Project or Merge without preserves_nullability and the"
          + " other writes values (Append, Update, DataReplacement, DataOverlay), in either order; else C.",
      C_R, true, SchemaChanges::n1);

  static final ConflictCondition S1 = new SimpleCondition("s1",
      "[2026] Merge with schema/field metadata, either order. R when one side is a Merge and the other an UpdateConfig"
          + " that changes schema metadata or some field's metadata (replace, or at least one entry); else C.",
      C_R, true, SchemaChanges::s1);

  static final ConflictCondition P1 = new SimpleCondition("p1",
      "[2026] Primary-key filter (Update vs Append/Update). R when ours carries inserted_rows (a key-existence filter"
          + " of a primary-key upsert) and the committed transaction is an Append or an Update: Lance answers R against"
          + " an Append, an Update without a filter, or intersecting filters; the filter is opaque here, so any"
          + " committed Update counts. C when ours has no filter.",
      C_R, false, SchemaChanges::p1);

  /** Every named condition, in SPEC.md order. */
  static final List<ConflictCondition> ALL =
      List.of(O1, DU, K1, K2, K3, K4, F1, I1, I2, I3, I4, R1, D1, D2, M1, M2, M3, W1, W2, W3, B1, N1, S1, P1);

  static Map<String, ConflictCondition> byName() {
    Map<String, ConflictCondition> byName = new LinkedHashMap<>();
    for (ConflictCondition condition : ALL) {
      if (byName.put(condition.name(), condition) != null) {
        throw new IllegalStateException("Two conditions are named " + condition.name());
      }
    }
    return byName;
  }
}
