package dev.lancecommit.chaos.harness;

import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableVersions;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.group.GroupMembers;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * A table's history as stored, read with the project's codec and not through the coordinator: every version under
 * {@code _versions/} and the transaction (uuid and operation) that produced it, inline or from its {@code .txn} file.
 * A version may be a group commit: its transaction then names the writers' transactions it commits (its members).
 *
 * @param versions every version listed, ascending
 * @param transactions version to its transaction, for the versions that could be read
 * @param problems versions that could not be read, or whose manifest names another version
 */
record TableHistory(ChaosTable table, List<Long> versions, Map<Long, Transaction> transactions,
    List<String> problems) {

  static TableHistory read(ChaosTable table) {
    TableOperations storage = table.storage();
    TableVersions listing = storage.versions();
    ManifestNaming.Scheme scheme = listing.scheme().orElse(ManifestNaming.Scheme.V2);
    Map<Long, Transaction> transactions = new LinkedHashMap<>();
    List<String> problems = new ArrayList<>();
    for (long version : listing.versions()) {
      try {
        ManifestFile file = storage.readManifest(version, scheme).orElse(null);
        if (file == null) {
          problems.add("v" + version + " listed but unreadable");
          continue;
        }
        if (file.version() != version) {
          problems.add("the manifest named v" + version + " says v" + file.version());
        }
        transactions.put(version, storage.transactionOf(file));
      } catch (RuntimeException e) {
        problems.add("v" + version + ": " + e.getMessage());
      }
    }
    return new TableHistory(table, listing.versions(), Collections.unmodifiableMap(transactions),
        List.copyOf(problems));
  }

  long latest() {
    return versions.isEmpty() ? 0 : versions.get(versions.size() - 1);
  }

  String uuidAt(long version) {
    Transaction txn = transactions.get(version);
    return txn == null ? null : txn.getUuid();
  }

  /** The writers' transactions a version commits: the members of a group, or its own transaction; empty if unread. */
  List<String> membersAt(long version) {
    Transaction txn = transactions.get(version);
    if (txn == null) {
      return List.of();
    }
    List<String> members = GroupMembers.of(txn);
    return members.isEmpty() ? List.of(txn.getUuid()) : members;
  }
}
