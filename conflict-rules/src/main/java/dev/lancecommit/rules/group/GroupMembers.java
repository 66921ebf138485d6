package dev.lancecommit.rules.group;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;
import java.util.Objects;

/**
 * The members of a group commit, recorded in the group's transaction: one version made of several writers'
 * transactions carries a fresh uuid of its own and lists its members' uuids, in the order they were applied, in the
 * transaction property {@value #PROPERTY} (comma separated). That record is what makes a member's resubmission
 * answer the shared version, also after a restart: the conflict rules treat a committed group naming our uuid as
 * our own commit (see {@code ConflictResolver}).
 *
 * <p>The property is reserved: a transaction a writer sends must not carry it, or it could claim another writer's
 * uuid as committed ({@link #requireAbsent}).
 */
public final class GroupMembers {
  /** Transaction property listing a group commit's member uuids, comma separated, in the order applied. */
  public static final String PROPERTY = "lance-commit-coordinator.group-members";

  private GroupMembers() {}

  /** The member uuids of a group commit, in order; empty for a transaction that is not a group. */
  public static List<String> of(Transaction txn) {
    String value = txn.getTransactionPropertiesMap().get(PROPERTY);
    if (value == null || value.isEmpty()) {
      return List.of();
    }
    List<String> members = new ArrayList<>();
    int start = 0;
    while (start <= value.length()) {
      int comma = value.indexOf(',', start);
      int end = comma < 0 ? value.length() : comma;
      if (end > start) {
        members.add(value.substring(start, end));
      }
      if (comma < 0) {
        break;
      }
      start = comma + 1;
    }
    return List.copyOf(members);
  }

  /** True when {@code txn} is a group commit naming {@code uuid} among its members. */
  public static boolean includes(Transaction txn, String uuid) {
    if (uuid == null || uuid.isEmpty()) {
      return false;
    }
    String value = txn.getTransactionPropertiesMap().get(PROPERTY);
    if (value == null) {
      return false;
    }
    // Uuids hold no comma, so a member is a whole comma-delimited item.
    for (int from = value.indexOf(uuid); from >= 0; from = value.indexOf(uuid, from + 1)) {
      int end = from + uuid.length();
      if ((from == 0 || value.charAt(from - 1) == ',') && (end == value.length() || value.charAt(end) == ',')) {
        return true;
      }
    }
    return false;
  }

  /** True when {@code txn} made the commit of {@code uuid}: it is that transaction, or a group naming it. */
  public static boolean madeBy(Transaction txn, String uuid) {
    return !uuid.isEmpty() && (uuid.equals(txn.getUuid()) || includes(txn, uuid));
  }

  /** How many writers' transactions {@code txn} commits: its members, or 1 for a transaction that is no group. */
  public static int size(Transaction txn) {
    List<String> members = of(txn);
    return members.isEmpty() ? 1 : members.size();
  }

  /** The property value for {@code uuids}. */
  static String encode(Collection<String> uuids) {
    for (String uuid : uuids) {
      Objects.requireNonNull(uuid, "member uuid");
      if (uuid.isEmpty() || uuid.indexOf(',') >= 0) {
        throw new IllegalArgumentException("A group member needs a uuid without commas, got '" + uuid + "'");
      }
    }
    return String.join(",", uuids);
  }

  /**
   * Refuses a writer's transaction that carries the reserved property.
   *
   * @throws InvalidTransactionException when it does
   */
  public static void requireAbsent(Transaction txn) {
    if (txn.getTransactionPropertiesMap().containsKey(PROPERTY)) {
      throw new InvalidTransactionException("Transaction property '" + PROPERTY + "' is reserved for the group"
          + " commits the coordinator records; remove it from transaction " + txn.getUuid());
    }
  }
}
