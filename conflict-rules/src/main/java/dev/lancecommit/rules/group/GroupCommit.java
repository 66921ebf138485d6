package dev.lancecommit.rules.group;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;
import java.util.TreeMap;

/**
 * Which transactions commute into one version, and the one Lance transaction that records them (a group commit).
 *
 * <p>A group is applied as if its members had committed one after the other on top of the same version, each
 * checked (and, for Delete/Update, rebased) against the ones before it; what lands is one version whose manifest is
 * the merged transaction built on that version. The merge is only defined where it gives exactly the table the
 * members would give one by one:
 *
 * <ul>
 *   <li><b>Append</b>: the fragments of every member, in member order (Lance's own {@code commit_batch} merges
 *       appends the same way). Fragment ids must be unassigned (0), so that the builder numbers them in order.
 *   <li><b>Delete</b>: updated fragments by id, a later member's version of a fragment replacing an earlier one's
 *       (after the rebase each member's deletion vector of a fragment includes the earlier members' deletions of
 *       it); deleted fragment ids united.
 *   <li><b>Update</b> in rewrite-rows mode: removed ids united, updated fragments as for Delete, new fragments in
 *       member order. Indices on modified fields stop covering updated fragments, so the members must modify the
 *       same fields (and preserve the same ones), or the merged version would prune more than the members would.
 * </ul>
 *
 * Delete and Update are not grouped on tables with stable row ids (a merged Update would register moved rows in
 * indices differently from the members one by one), nor when they carry MemWAL merges, 2026 key-existence filters
 * or updated-offset maps; no member may carry a tag. Everything else commits alone, as the writer sent it.
 */
public final class GroupCommit {
  private GroupCommit() {}

  /**
   * Why {@code txn} cannot be a member of any group on {@code base} (it then commits alone), or empty when it can.
   *
   * @param base the table the group is built on (its latest version), null for a table without versions
   */
  public static Optional<String> whyAlone(Transaction txn, TableState base) {
    OperationKind kind = OperationKind.of(txn);
    if (!txn.getTag().isEmpty()) {
      return Optional.of("it carries a tag");
    }
    if (base == null) {
      return Optional.of("the table has no version yet");
    }
    return switch (kind) {
      case APPEND -> anyAssignedId(txn.getAppend().getFragmentsList())
          ? Optional.of("it names its fragment ids") : Optional.empty();
      case DELETE -> stableRowIds(base);
      case UPDATE -> {
        Transaction.Update update = txn.getUpdate();
        if (update.getUpdateMode() != Transaction.UpdateMode.REWRITE_ROWS) {
          yield Optional.of("it rewrites columns in place");
        }
        if (update.getMemWalToMergeOrCompactedSstablesCount() > 0) {
          yield Optional.of("it merges MemWAL state");
        }
        if (update.hasInsertedRows()) {
          yield Optional.of("it carries a key-existence filter");
        }
        if (update.getUpdatedFragmentOffsetsCount() > 0 || update.getUpdatedFragmentOffsetBitmapsCount() > 0) {
          yield Optional.of("it carries updated-offset maps");
        }
        if (anyAssignedId(update.getNewFragmentsList())) {
          yield Optional.of("it names the ids of its new fragments");
        }
        yield stableRowIds(base);
      }
      default -> Optional.of(kind.lanceName() + " is not grouped");
    };
  }

  /**
   * Why {@code candidate} cannot join the group {@code first} started (on {@code base}), or empty when it can: both
   * must be groupable ({@link #whyAlone}), of one operation, and Updates must modify and preserve the same fields.
   */
  public static Optional<String> whyNotWith(Transaction candidate, Transaction first, TableState base) {
    Optional<String> alone = whyAlone(candidate, base);
    if (alone.isPresent()) {
      return alone;
    }
    OperationKind kind = OperationKind.of(candidate);
    OperationKind firstKind = OperationKind.of(first);
    if (kind != firstKind) {
      return Optional.of("the group is of " + firstKind.lanceName() + ", not " + kind.lanceName());
    }
    if (kind == OperationKind.UPDATE) {
      Transaction.Update ours = candidate.getUpdate();
      Transaction.Update theirs = first.getUpdate();
      if (!new HashSet<>(ours.getFieldsModifiedList()).equals(new HashSet<>(theirs.getFieldsModifiedList()))) {
        return Optional.of("it modifies other fields than the group");
      }
      if (!new HashSet<>(ours.getFieldsForPreservingFragBitmapList())
          .equals(new HashSet<>(theirs.getFieldsForPreservingFragBitmapList()))) {
        return Optional.of("it preserves index coverage of other fields than the group");
      }
    }
    return Optional.empty();
  }

  /**
   * The transaction recording a group: its members merged (see the class comment) under {@code groupUuid}, built on
   * {@code readVersion}, with the properties every member sets alike, {@code extraProperties} and the member list.
   *
   * @param members two or more transactions, in the order they were checked, each checked (and rebased) against
   *     the ones before it, all accepted by {@link #whyNotWith} against the first
   * @throws IllegalArgumentException when the members cannot be merged
   */
  public static Transaction merge(String groupUuid, long readVersion, List<Transaction> members,
      Map<String, String> extraProperties) {
    Objects.requireNonNull(groupUuid, "groupUuid");
    if (members.size() < 2) {
      throw new IllegalArgumentException("A group has at least two members, got " + members.size());
    }
    Transaction first = members.get(0);
    OperationKind kind = OperationKind.of(first);
    Set<String> uuids = new LinkedHashSet<>();
    for (Transaction member : members) {
      if (OperationKind.of(member) != kind) {
        throw new IllegalArgumentException("A group of " + kind.lanceName() + " cannot hold a "
            + OperationKind.of(member).lanceName());
      }
      if (!uuids.add(member.getUuid())) {
        throw new IllegalArgumentException("Transaction " + member.getUuid() + " is in the group twice");
      }
    }
    Transaction.Builder merged = Transaction.newBuilder()
        .setUuid(groupUuid)
        .setReadVersion(readVersion)
        .putAllTransactionProperties(commonProperties(members))
        .putAllTransactionProperties(extraProperties)
        .putTransactionProperties(GroupMembers.PROPERTY, GroupMembers.encode(uuids));
    switch (kind) {
      case APPEND -> {
        Transaction.Append.Builder append = Transaction.Append.newBuilder();
        members.forEach(m -> append.addAllFragments(m.getAppend().getFragmentsList()));
        merged.setAppend(append);
      }
      case DELETE -> {
        Map<Long, DataFragment> updated = new LinkedHashMap<>();
        Set<Long> deleted = new LinkedHashSet<>();
        Set<String> predicates = new LinkedHashSet<>();
        for (Transaction member : members) {
          Transaction.Delete delete = member.getDelete();
          delete.getUpdatedFragmentsList().forEach(f -> updated.put(f.getId(), f));
          deleted.addAll(delete.getDeletedFragmentIdsList());
          if (!delete.getPredicate().isEmpty()) {
            predicates.add(delete.getPredicate());
          }
        }
        deleted.forEach(updated::remove);
        merged.setDelete(Transaction.Delete.newBuilder()
            .addAllUpdatedFragments(updated.values())
            .addAllDeletedFragmentIds(deleted)
            .setPredicate(predicates.size() == 1 ? predicates.iterator().next() : disjunction(predicates)));
      }
      case UPDATE -> {
        Map<Long, DataFragment> updated = new LinkedHashMap<>();
        Set<Long> removed = new LinkedHashSet<>();
        List<DataFragment> added = new ArrayList<>();
        for (Transaction member : members) {
          Transaction.Update update = member.getUpdate();
          update.getUpdatedFragmentsList().forEach(f -> updated.put(f.getId(), f));
          removed.addAll(update.getRemovedFragmentIdsList());
          added.addAll(update.getNewFragmentsList());
        }
        removed.forEach(updated::remove);
        Transaction.Update update = first.getUpdate();
        merged.setUpdate(Transaction.Update.newBuilder()
            .addAllRemovedFragmentIds(removed)
            .addAllUpdatedFragments(updated.values())
            .addAllNewFragments(added)
            .addAllFieldsModified(update.getFieldsModifiedList())
            .addAllFieldsForPreservingFragBitmap(update.getFieldsForPreservingFragBitmapList())
            .setUpdateMode(update.getUpdateMode()));
      }
      default -> throw new IllegalArgumentException(kind.lanceName() + " transactions are not grouped");
    }
    return merged.build();
  }

  private static Map<String, String> commonProperties(List<Transaction> members) {
    Map<String, String> common = new TreeMap<>(members.get(0).getTransactionPropertiesMap());
    for (Transaction member : members.subList(1, members.size())) {
      common.entrySet().removeIf(e -> !e.getValue().equals(member.getTransactionPropertiesMap().get(e.getKey())));
    }
    common.remove(GroupMembers.PROPERTY);
    return common;
  }

  private static String disjunction(Set<String> predicates) {
    List<String> parts = new ArrayList<>();
    predicates.forEach(p -> parts.add("(" + p + ")"));
    return String.join(" OR ", parts);
  }

  private static boolean anyAssignedId(List<DataFragment> fragments) {
    return fragments.stream().anyMatch(f -> f.getId() != 0);
  }

  private static Optional<String> stableRowIds(TableState base) {
    return FeatureFlags.usesStableRowIds(base.manifest())
        ? Optional.of("the table uses stable row ids") : Optional.empty();
  }
}
