package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * DataReplacement (experimental in Lance): per group, the data files of the fragment that store exactly the new
 * file's fields in the same file version now point at the new file; when no file stores any of those fields (an
 * all-null column getting real data) the new file is added. Every new file must store the same fields, and every
 * group must change its fragment. Unlike Lance, the new file's base (or lack of one) goes with its path, and
 * several groups on one fragment apply one after the other.
 */
final class DataReplacementOperation {
  private DataReplacementOperation() {}

  static void apply(ManifestDraft draft, Transaction.DataReplacement replacement) {
    Set<List<Integer>> fieldSets = new HashSet<>();
    replacement.getReplacementsList().forEach(g -> fieldSets.add(g.getNewFile().getFieldsList()));
    if (fieldSets.size() > 1) {
      throw new InvalidTransactionException(
          "All new data files must have the same fields, but found different fields: " + fieldSets);
    }
    Map<Long, DataFragment> fragments = new LinkedHashMap<>();
    draft.fragments().forEach(f -> fragments.put(f.getId(), f));
    for (Transaction.DataReplacementGroup group : replacement.getReplacementsList()) {
      DataFragment fragment = fragments.get(group.getFragmentId());
      if (fragment == null) {
        throw new InvalidTransactionException("Fragment " + group.getFragmentId()
            + " being replaced not found in existing fragments");
      }
      DataFragment replaced = replace(fragment, group.getNewFile());
      if (replaced.equals(fragment)) {
        throw new InvalidTransactionException("Expected to modify fragment " + fragment.getId()
            + " but no changes were made: the new data file does not align with any existing data file (fields "
            + group.getNewFile().getFieldsList() + ", file version " + group.getNewFile().getFileMajorVersion()
            + "." + group.getNewFile().getFileMinorVersion() + ")");
      }
      fragments.put(fragment.getId(), replaced);
    }
    draft.adoptFragments(new ArrayList<>(fragments.values()));
  }

  private static DataFragment replace(DataFragment fragment, DataFile newFile) {
    DataFragment.Builder result = fragment.toBuilder().clearFiles();
    Set<Integer> covered = new HashSet<>();
    for (DataFile file : fragment.getFilesList()) {
      covered.addAll(file.getFieldsList());
      if (file.getFieldsList().equals(newFile.getFieldsList())
          && file.getFileMajorVersion() == newFile.getFileMajorVersion()
          && file.getFileMinorVersion() == newFile.getFileMinorVersion()) {
        DataFile.Builder swapped = file.toBuilder().setPath(newFile.getPath())
            .setFileSizeBytes(newFile.getFileSizeBytes());
        if (newFile.hasBaseId()) {
          swapped.setBaseId(newFile.getBaseId());
        } else {
          swapped.clearBaseId();
        }
        result.addFiles(swapped);
      } else {
        result.addFiles(file);
      }
    }
    if (newFile.getFieldsList().stream().noneMatch(covered::contains)) {
      result.addFiles(newFile);
    }
    return result.build();
  }
}
