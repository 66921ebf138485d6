package dev.lancecommit.coordinator.http;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.format.pb.Transaction;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/**
 * A Clone reads another table's files, so committing one needs more than the commit grant on the target: read on the
 * catalogued table whose location holds {@code ref_path} (its root, or one of its branches under {@code tree/}), or,
 * for a location no catalogued table holds, admin on the root namespace. Only checked when auth is on. Blocking
 * (lists the catalog).
 */
final class CloneSourceAccess {
  private CloneSourceAccess() {}

  static void require(AccessControl access, Principal caller, Catalog catalog, byte[] transaction) {
    if (!access.isEnabled()) {
      return;
    }
    Transaction txn;
    try {
      txn = Transaction.parseFrom(transaction);
    } catch (InvalidProtocolBufferException e) {
      return; // the commit path refuses it with the reason
    }
    if (!txn.hasClone()) {
      return;
    }
    String refPath = normalized(txn.getClone().getRefPath());
    Optional<TableEntry> source = catalog.liveTables().stream()
        .filter(entry -> holds(normalized(entry.location()), refPath))
        .max(Comparator.comparingInt(entry -> entry.location().length()));
    if (source.isPresent()) {
      access.require(caller, Permission.READ, source.get().id());
    } else {
      access.require(caller, Permission.ADMIN, List.of());
    }
  }

  private static boolean holds(String location, String path) {
    return path.equals(location) || path.startsWith(location + "/");
  }

  private static String normalized(String location) {
    String path = location.startsWith("file://") ? location.substring("file://".length()) : location;
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return path;
  }
}
