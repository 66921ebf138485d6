package dev.lancecommit.coordinator.http;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import io.vertx.core.json.JsonObject;

/**
 * The spec's {@code TableBasicStats} of one version, from its manifest alone: {@code num_fragments},
 * {@code num_deleted_rows} (the sum of the deletion files' recorded counts) and, beyond the spec,
 * {@code num_rows} = physical rows minus deleted rows. Lance writes 0 for "unknown" in both counts (manifests of
 * old writers); {@code num_rows} is left out when any fragment has an unknown count.
 */
final class TableStats {
  private TableStats() {}

  static JsonObject of(Manifest manifest) {
    long physical = 0;
    long deleted = 0;
    boolean exact = true;
    for (DataFragment fragment : manifest.getFragmentsList()) {
      if (fragment.getPhysicalRows() == 0 && fragment.getFilesCount() > 0) {
        exact = false;
      }
      physical += fragment.getPhysicalRows();
      if (fragment.hasDeletionFile()) {
        long count = fragment.getDeletionFile().getNumDeletedRows();
        if (count == 0) {
          exact = false;
        }
        deleted += count;
      }
    }
    JsonObject stats = new JsonObject()
        .put("num_deleted_rows", deleted)
        .put("num_fragments", (long) manifest.getFragmentsCount());
    if (exact) {
      stats.put("num_rows", physical - deleted);
    }
    return stats;
  }
}
