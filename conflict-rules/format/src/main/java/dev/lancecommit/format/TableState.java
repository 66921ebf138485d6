package dev.lancecommit.format;

import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.util.List;

/**
 * One version of a table as the commit path sees it: the manifest and the index list from its IndexSection
 * (indices are not part of the Manifest message, and every new manifest must carry them forward).
 */
public record TableState(Manifest manifest, List<IndexMetadata> indices) {
  public TableState {
    indices = List.copyOf(indices);
  }

  public long version() {
    return manifest.getVersion();
  }
}
