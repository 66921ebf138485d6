package dev.lancecommit.coordinator.refs;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.VersionFile;
import dev.lancecommit.coordinator.table.VersionNotFoundException;
import dev.lancecommit.format.pb.Transaction;
import java.time.Clock;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;
import java.util.UUID;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.Executor;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A table's branches, made and stored as Lance makes and stores them. A branch {@code b} is a dataset rooted at
 * {@code {table}/tree/{b}} whose first version is a shallow Clone of the version it was made from (same version
 * number, the parent's files reached through a base path to the parent's root), committed through the branch's own
 * commit lane like any commit (with its event); then the ref file {@code _refs/branches/{b}.json} is written with
 * put-if-absent ({@link BranchContents}). The ref file is what makes the branch exist, for Lance and here: commits to
 * a branch without one are refused, and a directory left without one (a creation that died between the two steps, a
 * deletion that died before removing the files) is cleared when the branch is made again.
 *
 * <p>Deleting a branch removes its ref file, then its files (not those of branches nested below its name); a branch
 * other branches were made from, or that tags name, is refused, as Lance refuses it.
 */
public final class Branches {
  private static final Logger LOG = LoggerFactory.getLogger(Branches.class);

  private final Function<String, StorageLocation> stores;
  private final CommitService commits;
  private final RefLocks locks;
  private final Executor executor;
  private final Clock clock;

  /**
   * @param executor runs the blocking step after a branch's first version landed (writing its ref file)
   */
  public Branches(Function<String, StorageLocation> stores, CommitService commits, RefLocks locks, Executor executor,
      Clock clock) {
    this.stores = Objects.requireNonNull(stores, "stores");
    this.commits = Objects.requireNonNull(commits, "commits");
    this.locks = Objects.requireNonNull(locks, "locks");
    this.executor = Objects.requireNonNull(executor, "executor");
    this.clock = Objects.requireNonNull(clock, "clock");
  }

  /** A branch made: its first version (the parent's version number) and the Clone transaction that made it. */
  public record Created(String branch, long version, String transactionUuid) {}

  /** Every branch of the table, by name. Blocking. */
  public Map<String, BranchContents> list(TableRef table) {
    return refs(table).branches();
  }

  /**
   * Checks that the branch {@code table} names exists (the main branch always does). Blocking.
   *
   * @throws BranchNotFoundException when it has no ref file
   */
  public void require(TableRef table) {
    if (!table.isMain() && refs(table).branch(table.branch()).isEmpty()) {
      throw new BranchNotFoundException(table.joinedId(), table.branch());
    }
  }

  /**
   * Makes branch {@code name} from {@code fromVersion} (default: the latest) of {@code fromBranch} (null or main: the
   * main branch). Blocks while checking; the future completes once the Clone landed and the ref file is written.
   *
   * @throws BranchAlreadyExistsException when the branch exists
   * @throws BranchNotFoundException when {@code fromBranch} does not
   * @throws VersionNotFoundException when the source has no such version (or none at all)
   */
  public CompletableFuture<Created> create(TableRef table, String name, String fromBranch, OptionalLong fromVersion,
      String actor) {
    RefNames.checkBranch(name);
    String from = RefNames.branchOrMain(fromBranch);
    locks.acquire(table.tableUuid());
    try {
      RefStore refs = refs(table);
      Map<String, BranchContents> branches = refs.branches();
      if (branches.containsKey(name)) {
        throw new BranchAlreadyExistsException(table.joinedId(), name);
      }
      List<BranchContents.Mapping> lineage = List.of();
      if (from != null) {
        BranchContents parent = Optional.ofNullable(branches.get(from))
            .orElseThrow(() -> new BranchNotFoundException(table.joinedId(), from));
        lineage = parent.identifier();
      }
      TableRef source = table.onBranch(from);
      TableOperations sourceOps = TableOperations.of(stores.apply(source.branchRoot()));
      long version = fromVersion.isPresent() ? fromVersion.getAsLong() : sourceOps.versions().latest()
          .orElseThrow(() -> new VersionNotFoundException("Table " + source.displayName() + " has no version yet"));
      VersionFile sourceFile = sourceOps.versionFile(version)
          .orElseThrow(() -> new VersionNotFoundException(source.displayName(), version));
      clearLeftovers(table, name, branches.keySet());

      TableRef branch = table.onBranch(name);
      Transaction.Clone.Builder clone = Transaction.Clone.newBuilder()
          .setIsShallow(true)
          .setRefVersion(version)
          .setRefPath(source.branchRoot())
          .setBranchName(name);
      if (from != null) {
        clone.setRefName(from);
      }
      // As Lance's create_branch builds it: read_version is the source version.
      Transaction txn = Transaction.newBuilder()
          .setReadVersion(version)
          .setUuid(UUID.randomUUID().toString())
          .setClone(clone)
          .build();
      List<BranchContents.Mapping> parentLineage = lineage;
      return commits.commit(branch, new CommitRequest(txn.toByteArray(), Optional.empty(), true, actor))
          .thenApplyAsync(result -> {
            refs.createBranch(name, BranchContents.of(from, parentLineage, version, sourceFile.size(),
                clock.instant().getEpochSecond(), UUID.randomUUID()));
            return new Created(name, result.version(), txn.getUuid());
          }, executor)
          .whenComplete((created, failure) -> locks.release(table.tableUuid()));
    } catch (RuntimeException e) {
      locks.release(table.tableUuid());
      throw e;
    }
  }

  /**
   * Deletes branch {@code name}: its ref file, then its files. Blocking.
   *
   * @throws BranchNotFoundException when it does not exist
   * @throws RefInUseException when other branches were made from it or tags name it
   */
  public void delete(TableRef table, String name) {
    RefNames.checkBranch(name);
    locks.with(table.tableUuid(), () -> {
      RefStore refs = refs(table);
      Map<String, BranchContents> branches = refs.branches();
      if (!branches.containsKey(name)) {
        throw new BranchNotFoundException(table.joinedId(), name);
      }
      List<String> children = branches.entrySet().stream()
          .filter(e -> e.getValue().parentBranch().filter(name::equals).isPresent())
          .map(Map.Entry::getKey).toList();
      if (!children.isEmpty()) {
        throw new RefInUseException("Branch '" + name + "' cannot be deleted: branches " + children
            + " were made from it; delete them first");
      }
      List<String> tags = refs.tags().entrySet().stream()
          .filter(e -> e.getValue().branch().filter(name::equals).isPresent())
          .map(Map.Entry::getKey).toList();
      if (!tags.isEmpty()) {
        throw new RefInUseException("Branch '" + name + "' cannot be deleted: tags " + tags
            + " name its versions; delete or move them first");
      }
      refs.deleteBranch(name);
      clearLeftovers(table, name, branches.keySet());
      return null;
    });
  }

  /**
   * Deletes what lies under {@code tree/{name}/} except the datasets of other branches nested below that name
   * ({@code name/x} lives in {@code tree/name/x/}).
   */
  private void clearLeftovers(TableRef table, String name, Set<String> branches) {
    StorageLocation root = stores.apply(table.location());
    String prefix = root.key(TableRef.branchPath(name)) + "/";
    List<String> nested = new ArrayList<>();
    for (String other : branches) {
      if (other.startsWith(name + "/")) {
        nested.add(other.substring(name.length() + 1) + "/");
      }
    }
    int deleted = 0;
    for (ObjectInfo info : root.store().list(root.key(TableRef.branchPath(name)))) {
      String relative = info.key().substring(prefix.length());
      if (nested.stream().noneMatch(relative::startsWith)) {
        root.store().delete(info.key());
        deleted++;
      }
    }
    if (deleted > 0) {
      LOG.info("Removed {} files of branch '{}' of table {}", deleted, name, table.joinedId());
    }
  }

  private RefStore refs(TableRef table) {
    return new RefStore(stores.apply(table.location()), table.joinedId());
  }
}
