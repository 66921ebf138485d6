package dev.lancecommit.coordinator.refs;

import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.coordinator.table.VersionNotFoundException;
import java.time.Clock;
import java.util.Map;
import java.util.Objects;
import java.util.function.Function;

/**
 * A table's tags, stored where and as Lance stores them ({@link RefStore}, {@link TagContents}), so stock Lance lists
 * them and checks them out. A tag names a version of the main branch or of another branch; creating or moving one
 * checks that the version exists (its manifest is there) and writes what Lance writes: the branch, the version, the
 * manifest's size and the times. Blocking.
 */
public final class Tags {
  private final Function<String, StorageLocation> stores;
  private final RefLocks locks;
  private final Clock clock;

  public Tags(Function<String, StorageLocation> stores, RefLocks locks, Clock clock) {
    this.stores = Objects.requireNonNull(stores, "stores");
    this.locks = Objects.requireNonNull(locks, "locks");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** Every tag of the table, by name. */
  public Map<String, TagContents> list(TableRef table) {
    return refs(table).tags();
  }

  /** @throws TagNotFoundException when there is no such tag */
  public TagContents get(TableRef table, String tag) {
    RefNames.checkTag(tag);
    return refs(table).tag(tag).orElseThrow(() -> new TagNotFoundException(table.joinedId(), tag));
  }

  /**
   * Tags {@code version} of {@code branch} (null or main: the main branch).
   *
   * @throws TagAlreadyExistsException when the tag exists
   * @throws VersionNotFoundException when the version does not exist on the branch
   * @throws BranchNotFoundException when the branch does not exist
   */
  public void create(TableRef table, String tag, long version, String branch) {
    RefNames.checkTag(tag);
    TableRef target = table.onBranch(RefNames.branchOrMain(branch));
    locks.with(table.tableUuid(), () -> {
      RefStore refs = refs(table);
      if (refs.tag(tag).isPresent()) {
        throw new TagAlreadyExistsException(table.joinedId(), tag);
      }
      VersionFile file = requireVersion(refs, target, version);
      refs.createTag(tag, TagContents.of(target.branch(), version, file.size(), clock.instant()));
      return null;
    });
  }

  /**
   * Moves the tag to {@code version} of {@code branch}, keeping its creation time and metadata.
   *
   * @throws TagNotFoundException when there is no such tag
   * @throws VersionNotFoundException when the version does not exist on the branch
   */
  public void update(TableRef table, String tag, long version, String branch) {
    RefNames.checkTag(tag);
    TableRef target = table.onBranch(RefNames.branchOrMain(branch));
    locks.with(table.tableUuid(), () -> {
      RefStore refs = refs(table);
      TagContents existing = refs.tag(tag).orElseThrow(() -> new TagNotFoundException(table.joinedId(), tag));
      VersionFile file = requireVersion(refs, target, version);
      refs.replaceTag(tag, existing.movedTo(target.branch(), version, file.size(), clock.instant()));
      return null;
    });
  }

  /** @throws TagNotFoundException when there is no such tag */
  public void delete(TableRef table, String tag) {
    RefNames.checkTag(tag);
    locks.with(table.tableUuid(), () -> {
      RefStore refs = refs(table);
      if (refs.tag(tag).isEmpty()) {
        throw new TagNotFoundException(table.joinedId(), tag);
      }
      refs.deleteTag(tag);
      return null;
    });
  }

  private VersionFile requireVersion(RefStore refs, TableRef target, long version) {
    if (!target.isMain() && refs.branch(target.branch()).isEmpty()) {
      throw new BranchNotFoundException(target.joinedId(), target.branch());
    }
    return TableOperations.of(stores.apply(target.branchRoot())).versionFile(version)
        .orElseThrow(() -> new VersionNotFoundException(target.displayName(), version));
  }

  private RefStore refs(TableRef table) {
    return new RefStore(stores.apply(table.location()), table.joinedId());
  }
}
