package dev.lancecommit.rules;

import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.RowDatasetVersionRun;
import dev.lancecommit.format.pb.RowDatasetVersionSequence;
import dev.lancecommit.format.pb.RowIdSequence;
import dev.lancecommit.format.pb.U64Segment;
import java.util.ArrayList;
import java.util.List;

/**
 * Stable row ids for the fragments a transaction adds (Lance's {@code assign_row_ids}) and their per-row version
 * metadata. Only used on tables with stable row ids (reader flag 2).
 */
public final class RowIdAssigner {
  private RowIdAssigner() {}

  /** The fragments with row ids, and the table's next unused row id after them. */
  public record Assignment(List<DataFragment> fragments, long nextRowId) {
    public Assignment {
      fragments = List.copyOf(fragments);
    }
  }

  /**
   * Per fragment, in order: without a row id sequence it gets {@code [next, next + physical_rows)}; with a partial
   * inline sequence (fewer ids than rows, e.g. rows a merge-insert moved plus inserted ones) the missing ids are
   * appended from {@code next}; a complete sequence is kept. physical_rows must be known (> 0).
   *
   * @throws InvalidTransactionException for unknown physical_rows, more ids than rows, an undecodable sequence, or
   *     an external sequence that would need filling
   */
  public static Assignment assign(List<DataFragment> fragments, long nextRowId) {
    List<DataFragment> result = new ArrayList<>(fragments.size());
    long next = nextRowId;
    for (DataFragment fragment : fragments) {
      long rows = fragment.getPhysicalRows();
      if (rows <= 0) {
        throw new InvalidTransactionException("Fragment " + fragment.getId()
            + " does not declare physical_rows, which stable row id assignment needs");
      }
      switch (fragment.getRowIdSequenceCase()) {
        case ROWIDSEQUENCE_NOT_SET -> {
          result.add(fragment.toBuilder().setInlineRowIds(RowIds.encodeFresh(next, rows)).build());
          next += rows;
        }
        case INLINE_ROW_IDS -> {
          RowIdSequence sequence = parse(fragment);
          long existing = count(fragment, sequence);
          if (existing > rows) {
            throw new InvalidTransactionException("Fragment " + fragment.getId() + " has more row IDs ("
                + existing + ") than physical rows (" + rows + ")");
          }
          if (existing == rows) {
            result.add(fragment);
          } else {
            long missing = rows - existing;
            RowIdSequence filled = sequence.toBuilder()
                .addSegments(U64Segment.newBuilder().setRange(
                    U64Segment.Range.newBuilder().setStart(next).setEnd(next + missing)))
                .build();
            result.add(fragment.toBuilder().setInlineRowIds(filled.toByteString()).build());
            next += missing;
          }
        }
        case EXTERNAL_ROW_IDS -> throw new InvalidTransactionException("Fragment " + fragment.getId()
            + " carries an external row id sequence; new fragments must carry their row ids inline");
      }
    }
    return new Assignment(result, next);
  }

  /** The number of row ids of an inline sequence; -1 when the fragment has none or an external one. */
  public static long inlineRowIdCount(DataFragment fragment) {
    if (fragment.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.INLINE_ROW_IDS) {
      return -1;
    }
    return count(fragment, parse(fragment));
  }

  /** Every row id of the fragment's inline sequence, or null when it has none inline. */
  static long[] inlineRowIds(DataFragment fragment) {
    if (fragment.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.INLINE_ROW_IDS) {
      return null;
    }
    RowIdSequence sequence = parse(fragment);
    try {
      return RowIds.rowIds(sequence);
    } catch (CorruptManifestException | IllegalArgumentException e) {
      throw new InvalidTransactionException(
          "Fragment " + fragment.getId() + " carries row ids that do not decode: " + e.getMessage(), e);
    }
  }

  private static long count(DataFragment fragment, RowIdSequence sequence) {
    try {
      return RowIds.rowCount(sequence);
    } catch (CorruptManifestException e) {
      throw new InvalidTransactionException(
          "Fragment " + fragment.getId() + " carries row ids that do not decode: " + e.getMessage(), e);
    }
  }

  /**
   * Lance's {@code build_version_meta} for both sequences: every row created / last updated at the given versions;
   * a fragment without rows carries neither sequence.
   */
  public static DataFragment stampVersions(DataFragment fragment, long createdAt, long lastUpdatedAt) {
    long rows = fragment.getPhysicalRows();
    DataFragment.Builder stamped = fragment.toBuilder()
        .clearCreatedAtVersionSequence()
        .clearLastUpdatedAtVersionSequence();
    if (rows > 0) {
      stamped.setInlineCreatedAtVersions(RowIds.encodeFreshVersions(rows, createdAt))
          .setInlineLastUpdatedAtVersions(RowIds.encodeFreshVersions(rows, lastUpdatedAt));
    }
    return stamped.build();
  }

  /** Per-row versions compressed into runs of equal consecutive values, spans being row positions. */
  static RowDatasetVersionSequence runsOf(long[] versions) {
    RowDatasetVersionSequence.Builder sequence = RowDatasetVersionSequence.newBuilder();
    int start = 0;
    for (int i = 1; i <= versions.length; i++) {
      if (i == versions.length || versions[i] != versions[start]) {
        sequence.addRuns(RowDatasetVersionRun.newBuilder()
            .setSpan(U64Segment.newBuilder().setRange(U64Segment.Range.newBuilder().setStart(start).setEnd(i)))
            .setVersion(versions[start]));
        start = i;
      }
    }
    return sequence.build();
  }

  /** The per-row versions of an inline version sequence, by row position; null when there is none inline. */
  static long[] inlineCreatedAt(DataFragment fragment) {
    if (fragment.getCreatedAtVersionSequenceCase()
        != DataFragment.CreatedAtVersionSequenceCase.INLINE_CREATED_AT_VERSIONS) {
      return null;
    }
    try {
      RowDatasetVersionSequence sequence = RowIds.parseVersions(fragment.getInlineCreatedAtVersions());
      long total = RowIds.rowCount(sequence);
      if (total > Integer.MAX_VALUE - 8) {
        return null;
      }
      long[] versions = new long[(int) total];
      for (RowDatasetVersionRun run : sequence.getRunsList()) {
        long[] positions = RowIds.rowIds(RowIdSequence.newBuilder().addSegments(run.getSpan()).build());
        for (long position : positions) {
          if (position >= 0 && position < versions.length) {
            versions[(int) position] = run.getVersion();
          }
        }
      }
      return versions;
    } catch (CorruptManifestException | IllegalArgumentException e) {
      // Lance falls back to version 1 for rows whose origin it cannot read.
      return null;
    }
  }

  private static RowIdSequence parse(DataFragment fragment) {
    try {
      return RowIds.parse(fragment.getInlineRowIds());
    } catch (CorruptManifestException e) {
      throw new InvalidTransactionException(
          "Fragment " + fragment.getId() + " carries row ids that do not decode: " + e.getMessage(), e);
    }
  }
}
