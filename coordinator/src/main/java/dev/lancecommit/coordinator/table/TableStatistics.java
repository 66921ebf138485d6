package dev.lancecommit.coordinator.table;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.function.ToLongFunction;

/**
 * The spec's {@code GetTableStatsResponse} of one version, computed from its manifest without reading a data file.
 *
 * <ul>
 *   <li>{@code num_rows}: live rows, the fragments' {@code physical_rows} minus their deletion files'
 *       {@code num_deleted_rows} (what {@code count_rows} answers). Lance writes 0 for "unknown" in both counts
 *       (manifests of writers from before 2023); such a fragment counts as 0 rows.
 *   <li>{@code total_bytes}: the bytes of the data files, as each {@code DataFile.file_size_bytes} records them
 *       (Lance's {@code calculate_data_stats} counts the same files); a file whose size the manifest does not record
 *       is asked for with {@code sizeOfUnrecorded} (a HEAD request, never a read). Deletion and index files are not
 *       counted: the manifest does not record the size of a deletion file.
 *   <li>{@code num_indices}: distinct index names, without Lance's system indices ({@code __lance_*}: fragment reuse,
 *       MemWAL), as {@code list_indices} shows them.
 *   <li>{@code fragment_stats}: the number of fragments; {@code num_small_fragments}, those with fewer than
 *       {@value #SMALL_FRAGMENT_ROWS} live rows (the threshold the trigger consumer compacts below); and the
 *       distribution of live rows per fragment: min, max, integer mean, and the percentiles p25, p50, p75, p99 as the
 *       row count at index {@code (n-1)*p/100} of the sorted counts (the namespace's reference implementation's
 *       rule). A table without fragments answers zeros.
 * </ul>
 */
public record TableStatistics(long totalBytes, long numRows, long numIndices, long numFragments,
    long numSmallFragments, Lengths lengths) {
  /** Fragments with fewer live rows than this are "small" (uncompacted). */
  public static final long SMALL_FRAGMENT_ROWS = 100_000;
  /** Prefix of the names of Lance's system indices. */
  static final String SYSTEM_INDEX_PREFIX = "__lance";

  /** Live rows per fragment. */
  public record Lengths(long min, long max, long mean, long p25, long p50, long p75, long p99) {}

  /** The statistics of a table without any version yet: an empty table. */
  public static TableStatistics empty() {
    return new TableStatistics(0, 0, 0, 0, 0, new Lengths(0, 0, 0, 0, 0, 0, 0));
  }

  /**
   * @param sizeOfUnrecorded the size of a data file (path relative to the table's {@code data/}) whose manifest entry
   *     records none; files reached through a base path (shallow clones, branches) are given as recorded
   */
  public static TableStatistics of(TableState state, ToLongFunction<String> sizeOfUnrecorded) {
    long[] rows = new long[state.manifest().getFragmentsCount()];
    long totalRows = 0;
    long totalBytes = 0;
    long small = 0;
    int i = 0;
    for (DataFragment fragment : state.manifest().getFragmentsList()) {
      long deleted = fragment.hasDeletionFile() ? fragment.getDeletionFile().getNumDeletedRows() : 0;
      long live = Math.max(0, fragment.getPhysicalRows() - deleted);
      rows[i++] = live;
      totalRows += live;
      if (live < SMALL_FRAGMENT_ROWS) {
        small++;
      }
      for (DataFile file : fragment.getFilesList()) {
        long size = file.getFileSizeBytes();
        if (size == 0 && !file.hasBaseId()) {
          size = sizeOfUnrecorded.applyAsLong(file.getPath());
        }
        totalBytes += size;
      }
    }
    Set<String> indexNames = new HashSet<>();
    for (IndexMetadata index : state.indices()) {
      if (!index.getName().startsWith(SYSTEM_INDEX_PREFIX)) {
        indexNames.add(index.getName());
      }
    }
    return new TableStatistics(totalBytes, totalRows, indexNames.size(), rows.length, small, lengths(rows));
  }

  private static Lengths lengths(long[] rows) {
    if (rows.length == 0) {
      return new Lengths(0, 0, 0, 0, 0, 0, 0);
    }
    long[] sorted = rows.clone();
    Arrays.sort(sorted);
    long sum = 0;
    for (long r : sorted) {
      sum += r;
    }
    int n = sorted.length;
    return new Lengths(sorted[0], sorted[n - 1], sum / n,
        sorted[(n - 1) * 25 / 100], sorted[(n - 1) * 50 / 100], sorted[(n - 1) * 75 / 100],
        sorted[(n - 1) * 99 / 100]);
  }
}
