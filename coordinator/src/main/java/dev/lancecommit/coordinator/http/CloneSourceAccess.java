package dev.lancecommit.coordinator.http;

import com.google.protobuf.CodedInputStream;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.WireFormat;
import java.io.IOException;
import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.Optional;

/**
 * A Clone reads another table's files, so committing one needs more than the commit grant on the target: read on the
 * catalogued table whose location holds {@code ref_path} (its root, or one of its branches under {@code tree/}), or,
 * for a location no catalogued table holds, admin on the root namespace. Only checked when auth is on. Blocking
 * (reads the catalog's location registry).
 */
final class CloneSourceAccess {
  private CloneSourceAccess() {}

  /**
   * True when {@link #require} has anything to check: auth is on and the bytes may carry a Clone. Reads only the
   * top-level field tags (cheap, no full decode), so it can run on an event loop.
   */
  static boolean applies(AccessControl access, byte[] transaction) {
    if (!access.isEnabled()) {
      return false;
    }
    try {
      CodedInputStream in = CodedInputStream.newInstance(transaction);
      for (int tag = in.readTag(); tag != 0; tag = in.readTag()) {
        if (WireFormat.getTagFieldNumber(tag) == Transaction.CLONE_FIELD_NUMBER) {
          return true;
        }
        if (!in.skipField(tag)) {
          return false;
        }
      }
      return false;
    } catch (IOException e) {
      return false; // not a transaction: the commit path refuses it with the reason
    }
  }

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
    Optional<TableEntry> source = catalog.liveTableHolding(txn.getClone().getRefPath());
    if (source.isPresent()) {
      access.require(caller, Permission.READ, source.get().id());
    } else {
      access.require(caller, Permission.ADMIN, List.of());
    }
  }
}
