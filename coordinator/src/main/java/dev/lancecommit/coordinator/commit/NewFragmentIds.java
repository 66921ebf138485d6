package dev.lancecommit.coordinator.commit;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * The ids a version gave the fragments one transaction added (an Append's or Overwrite's fragments, an Update's new
 * fragments), in the transaction's order: what a Lance writer learns from the dataset its commit returns, and a
 * writer through the coordinator would otherwise read the version's manifest back for. Found by data file path among
 * the version's last fragments, where Lance puts the fragments a version adds, so the cost is that of the fragments
 * the version added, not of the table.
 */
final class NewFragmentIds {
  /** The fragments {@code txn} adds, as it names them (their ids unassigned). */
  static List<DataFragment> added(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case APPEND -> txn.getAppend().getFragmentsList();
      case OVERWRITE -> txn.getOverwrite().getFragmentsList();
      case UPDATE -> txn.getUpdate().getNewFragmentsList();
      default -> List.of();
    };
  }

  /**
   * The fragments among the last {@code tail} of {@code manifest} (the fragments its version added: {@link #added} of
   * the version's recorded transaction), by the path of their first data file.
   */
  static NewFragmentIds in(Manifest manifest, int tail) {
    int count = manifest.getFragmentsCount();
    Map<String, Long> idByPath = new HashMap<>();
    for (int i = Math.max(0, count - tail); i < count; i++) {
      DataFragment fragment = manifest.getFragments(i);
      if (fragment.getFilesCount() > 0) {
        idByPath.put(fragment.getFiles(0).getPath(), fragment.getId());
      }
    }
    return new NewFragmentIds(idByPath);
  }

  /** {@link #in(Manifest, int)} over the fragments the version's {@code recorded} transaction added. */
  static NewFragmentIds in(Manifest manifest, Transaction recorded) {
    return in(manifest, added(recorded).size());
  }

  private final Map<String, Long> idByPath;

  private NewFragmentIds(Map<String, Long> idByPath) {
    this.idByPath = idByPath;
  }

  /**
   * The ids given to the fragments {@code member} added, in its order; empty when it added none, or when any of them
   * is not found (a fragment without files, or a layout this does not know).
   */
  List<Long> of(Transaction member) {
    List<DataFragment> added = added(member);
    if (added.isEmpty()) {
      return List.of();
    }
    List<Long> ids = new ArrayList<>(added.size());
    for (DataFragment fragment : added) {
      Long id = fragment.getFilesCount() == 0 ? null : idByPath.get(fragment.getFiles(0).getPath());
      if (id == null) {
        return List.of();
      }
      ids.add(id);
    }
    return List.copyOf(ids);
  }
}
