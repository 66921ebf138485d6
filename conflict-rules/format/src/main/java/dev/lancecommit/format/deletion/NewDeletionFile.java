package dev.lancecommit.format.deletion;

import dev.lancecommit.format.pb.DeletionFile;
import java.util.Arrays;
import java.util.Objects;

/**
 * A deletion file to be written: which fragment it belongs to, its metadata (to set on the fragment) and its
 * encoded bytes (to store at {@link #relativePath()} under the table root). Immutable; the bytes are copied in and
 * out.
 */
public final class NewDeletionFile {
  private final long fragmentId;
  private final DeletionFile meta;
  private final byte[] bytes;

  public NewDeletionFile(long fragmentId, DeletionFile meta, byte[] bytes) {
    this.fragmentId = fragmentId;
    this.meta = Objects.requireNonNull(meta, "meta");
    this.bytes = Objects.requireNonNull(bytes, "bytes").clone();
    if (meta.hasBaseId()) {
      throw new IllegalArgumentException("A new deletion file is written under the table root, not base "
          + meta.getBaseId());
    }
  }

  public long fragmentId() {
    return fragmentId;
  }

  /** The {@code DataFragment.deletion_file} that points at this file. */
  public DeletionFile meta() {
    return meta;
  }

  /** The encoded file (a copy). */
  public byte[] bytes() {
    return bytes.clone();
  }

  /** {@code _deletions/{fragment_id}-{read_version}-{id}.{arrow|bin}}, relative to the table root. */
  public String relativePath() {
    return DeletionVectors.relativePath(fragmentId, meta);
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof NewDeletionFile other && fragmentId == other.fragmentId && meta.equals(other.meta)
        && Arrays.equals(bytes, other.bytes);
  }

  @Override
  public int hashCode() {
    return Objects.hash(fragmentId, meta, Arrays.hashCode(bytes));
  }

  @Override
  public String toString() {
    return "NewDeletionFile{" + relativePath() + ", " + meta.getNumDeletedRows() + " rows, " + bytes.length
        + " bytes}";
  }
}
