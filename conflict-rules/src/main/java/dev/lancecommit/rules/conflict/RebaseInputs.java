package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.rules.FragmentsById;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import java.io.ByteArrayInputStream;
import java.io.DataInputStream;
import java.io.IOException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.TreeMap;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * What the conflict check needs besides the two transactions.
 *
 * <ul>
 *   <li>{@code affectedRows}: row addresses ({@code fragment_id << 32 | offset}) our Delete/Update touched. Without
 *       them a Delete/Update that shares a fragment with a committed Delete/Update can only be retried.
 *   <li>{@code initialFragments}: the fragments our Delete/Update modifies, as they were at our read version (Lance
 *       loads them from the read version's manifest). Without them the D/U-rebase rule cannot tell which deletion
 *       vectors changed underneath us, so an overlap is retryable.
 *   <li>{@code rebaseAllowed}: false means the writer wants its transaction committed exactly on top of its read
 *       version, so any version committed since then makes it retryable (rule "no-rebase").
 * </ul>
 *
 * Immutable; the affected-rows map is copied in and out.
 */
public final class RebaseInputs {
  private static final RebaseInputs DEFAULTS = new RebaseInputs(null, null, true);

  private final Roaring64NavigableMap affectedRows;
  private final Map<Long, DataFragment> initialFragments;
  private final boolean rebaseAllowed;

  private RebaseInputs(
      Roaring64NavigableMap affectedRows, Map<Long, DataFragment> initialFragments, boolean rebaseAllowed) {
    this.affectedRows = affectedRows;
    this.initialFragments = initialFragments;
    this.rebaseAllowed = rebaseAllowed;
  }

  /** Rebase allowed, no affected rows, no initial fragments. */
  public static RebaseInputs defaults() {
    return DEFAULTS;
  }

  /** Rebase not allowed: any version committed since the read version makes the transaction retryable. */
  public static RebaseInputs noRebase() {
    return builder().rebaseAllowed(false).build();
  }

  /**
   * From a commit request: optional affected rows as a portable 64-bit Roaring map (the format of
   * {@link Roaring64NavigableMap#serializePortable}) and the writer's rebase flag.
   *
   * @throws InvalidTransactionException when the affected rows cannot be decoded
   */
  public static RebaseInputs of(Optional<byte[]> portableAffectedRows, boolean rebaseAllowed) {
    Objects.requireNonNull(portableAffectedRows, "portableAffectedRows");
    Builder builder = builder().rebaseAllowed(rebaseAllowed);
    portableAffectedRows.ifPresent(bytes -> builder.affectedRows(decodePortable(bytes)));
    return builder.build();
  }

  public static Builder builder() {
    return new Builder();
  }

  /** Decodes a portable 64-bit Roaring map of row addresses. */
  public static Roaring64NavigableMap decodePortable(byte[] bytes) {
    Objects.requireNonNull(bytes, "bytes");
    Roaring64NavigableMap map = new Roaring64NavigableMap();
    try (DataInputStream in = new DataInputStream(new ByteArrayInputStream(bytes))) {
      map.deserializePortable(in);
      if (in.available() > 0) {
        throw new IOException(in.available() + " trailing bytes");
      }
    } catch (IOException | RuntimeException e) {
      throw new InvalidTransactionException(
          "affected_rows is not a portable 64-bit Roaring bitmap of row addresses (" + e.getMessage() + ")", e);
    }
    return map;
  }

  /** A copy of the affected row addresses, if the writer supplied them. */
  public Optional<Roaring64NavigableMap> affectedRows() {
    if (affectedRows == null) {
      return Optional.empty();
    }
    Roaring64NavigableMap copy = new Roaring64NavigableMap();
    copy.or(affectedRows);
    return Optional.of(copy);
  }

  public boolean hasAffectedRows() {
    return affectedRows != null;
  }

  /** Fragment id -> fragment as of our read version, if supplied. */
  public Optional<Map<Long, DataFragment>> initialFragments() {
    return Optional.ofNullable(initialFragments);
  }

  public boolean rebaseAllowed() {
    return rebaseAllowed;
  }

  public Builder toBuilder() {
    Builder builder = builder().rebaseAllowed(rebaseAllowed);
    if (affectedRows != null) {
      builder.affectedRows(affectedRows);
    }
    if (initialFragments != null) {
      builder.initialFragments(initialFragments.values());
    }
    return builder;
  }

  @Override
  public String toString() {
    return "RebaseInputs{affectedRows=" + (affectedRows == null ? "none" : affectedRows.getLongCardinality() + " rows")
        + ", initialFragments=" + (initialFragments == null ? "none" : initialFragments.keySet())
        + ", rebaseAllowed=" + rebaseAllowed + "}";
  }

  /** Builds {@link RebaseInputs}; rebase is allowed unless said otherwise. */
  public static final class Builder {
    private Roaring64NavigableMap affectedRows;
    private Map<Long, DataFragment> initialFragments;
    private boolean rebaseAllowed = true;

    private Builder() {}

    /** Row addresses ({@code fragment_id << 32 | offset}); copied. */
    public Builder affectedRows(Roaring64NavigableMap rows) {
      Objects.requireNonNull(rows, "rows");
      Roaring64NavigableMap copy = new Roaring64NavigableMap();
      copy.or(rows);
      this.affectedRows = copy;
      return this;
    }

    /**
     * The fragments as of our read version (all of them, or at least those our transaction modifies).
     *
     * @throws IllegalArgumentException when two fragments share an id
     */
    public Builder initialFragments(Collection<DataFragment> fragments) {
      Objects.requireNonNull(fragments, "fragments");
      TreeMap<Long, DataFragment> byId = new TreeMap<>();
      for (DataFragment fragment : fragments) {
        Objects.requireNonNull(fragment, "fragment");
        if (byId.put(fragment.getId(), fragment) != null) {
          throw new IllegalArgumentException("Initial fragments contain fragment id " + fragment.getId() + " twice");
        }
      }
      this.initialFragments = Collections.unmodifiableMap(byId);
      return this;
    }

    /**
     * The fragments as of our read version that {@code ours} modifies, looked up by id in {@code atReadVersion}: all
     * that the conflict check and the rebase look up, without a pass over, or a map of, every fragment of the table.
     */
    public Builder initialFragmentsModifiedBy(Transaction ours, TableState atReadVersion) {
      Objects.requireNonNull(atReadVersion, "atReadVersion");
      FragmentsById byId = FragmentsById.of(atReadVersion);
      List<DataFragment> picked = new ArrayList<>();
      for (long id : FragmentOverlap.modifiedFragmentIds(ours)) {
        DataFragment fragment = byId.get(id);
        if (fragment != null) {
          picked.add(fragment);
        }
      }
      return initialFragments(picked);
    }

    /**
     * The fragments as of our read version, keyed by id.
     *
     * @throws IllegalArgumentException when a key differs from its fragment's id
     */
    public Builder initialFragments(Map<Long, DataFragment> fragments) {
      Objects.requireNonNull(fragments, "fragments");
      fragments.forEach((id, fragment) -> {
        if (id == null || fragment == null || id != fragment.getId()) {
          throw new IllegalArgumentException(
              "Initial fragment key " + id + " does not match fragment id " + (fragment == null ? null : fragment.getId()));
        }
      });
      return initialFragments(fragments.values());
    }

    public Builder rebaseAllowed(boolean allowed) {
      this.rebaseAllowed = allowed;
      return this;
    }

    public RebaseInputs build() {
      return new RebaseInputs(affectedRows, initialFragments, rebaseAllowed);
    }
  }
}
