package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.util.List;
import java.util.Objects;

/**
 * One version of a table as the commit path sees it: the manifest and the index list from its IndexSection
 * (indices are not part of the Manifest message, and every new manifest must carry them forward). Immutable.
 *
 * <p>Whether the fragments are sorted by id is found once per state and kept: every commit checked against this
 * version looks fragments up by id, and finding it again per commit would cost a pass over the whole table. A state
 * the commit path built itself is {@linkplain #normalized() normalized}: what the builder makes of every fragment
 * holds for all of them, so the next build needs to look only at the fragments its transaction changes.
 */
public final class TableState {
  private final Manifest manifest;
  private final List<IndexMetadata> indices;
  private final boolean normalized;
  private volatile Boolean fragmentsSortedById;
  private volatile EncodedFragments encodedFragments;
  /** The list of fragments {@link #edits} apply to (the version built on), or null. */
  private final List<DataFragment> editedFrom;
  private final FragmentEdits edits;

  public TableState(Manifest manifest, List<IndexMetadata> indices) {
    this(manifest, indices, false, null, null);
  }

  private TableState(Manifest manifest, List<IndexMetadata> indices, boolean normalized,
      List<DataFragment> editedFrom, FragmentEdits edits) {
    this.manifest = Objects.requireNonNull(manifest, "manifest");
    this.indices = List.copyOf(indices);
    this.normalized = normalized;
    this.fragmentsSortedById = normalized ? Boolean.TRUE : null;
    this.editedFrom = edits == null ? null : editedFrom;
    this.edits = editedFrom == null ? null : edits;
  }

  /**
   * A state as the manifest builder makes every version (Lance's build_manifest): fragments in strictly ascending id
   * order, no data file whose fields are all tombstoned, every data file of one storage version, row id sequences
   * only in a table with stable row ids. Only the builder that enforced all of that may call this.
   */
  public static TableState normalized(Manifest manifest, List<IndexMetadata> indices) {
    return new TableState(manifest, indices, true, null, null);
  }

  /**
   * {@link #normalized(Manifest, List)} for a state whose fragments the builder made by {@code edits} of
   * {@code editedFrom}, the fragments of the version it was built on (both sorted by id).
   */
  public static TableState normalized(Manifest manifest, List<IndexMetadata> indices, List<DataFragment> editedFrom,
      FragmentEdits edits) {
    return new TableState(manifest, indices, true, editedFrom, edits);
  }

  /**
   * How this state's fragments were made from {@code previous} (the very list of the version it was built on, as
   * that version's manifest returns it), when the builder knows; null otherwise.
   */
  public FragmentEdits editsFrom(List<DataFragment> previous) {
    return previous == editedFrom ? edits : null;
  }

  /** True when this state was made by {@link #normalized}; a state read from storage is not, whoever wrote it. */
  public boolean normalized() {
    return normalized;
  }

  public Manifest manifest() {
    return manifest;
  }

  public List<IndexMetadata> indices() {
    return indices;
  }

  public long version() {
    return manifest.getVersion();
  }

  /** True when the fragments are in strictly ascending id order (as Lance writes them). */
  public boolean fragmentsSortedById() {
    Boolean sorted = fragmentsSortedById;
    if (sorted == null) {
      sorted = strictlyAscending(manifest.getFragmentsList());
      fragmentsSortedById = sorted;
    }
    return sorted;
  }

  /**
   * This state's fragments as its manifest file encoded them, when the commit path wrote (or is writing) that file;
   * null otherwise (read from storage, or not encoded yet). The next version's encoding copies what it carries over.
   */
  public EncodedFragments encodedFragments() {
    return encodedFragments;
  }

  /** The fragments of this state, encoded: {@link EncodedFragments#of} with what {@code previous} kept. */
  public EncodedFragments encodeFragments(TableState previous) {
    EncodedFragments encoded = EncodedFragments.of(this, previous == null ? null : previous.encodedFragments());
    encodedFragments = encoded;
    return encoded;
  }

  private static boolean strictlyAscending(List<DataFragment> fragments) {
    for (int i = 1; i < fragments.size(); i++) {
      if (fragments.get(i - 1).getId() >= fragments.get(i).getId()) {
        return false;
      }
    }
    return true;
  }

  @Override
  public boolean equals(Object o) {
    return o instanceof TableState other && manifest.equals(other.manifest) && indices.equals(other.indices);
  }

  @Override
  public int hashCode() {
    return Objects.hash(manifest, indices);
  }

  @Override
  public String toString() {
    return "TableState[version=" + version() + ", fragments=" + manifest.getFragmentsCount() + ", indices="
        + indices.size() + "]";
  }
}
