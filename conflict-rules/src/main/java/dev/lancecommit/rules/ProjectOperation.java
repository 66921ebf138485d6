package dev.lancecommit.rules;

import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Set;

/**
 * Project (drop/alter columns): the schema is replaced (schema metadata kept: the protobuf carries none), data
 * files that hold no field of the new schema any more are dropped, and indices on dropped fields go.
 */
final class ProjectOperation {
  private ProjectOperation() {}

  static void apply(ManifestDraft draft, Transaction.Project project) {
    if (project.getSchemaCount() == 0) {
      throw new InvalidTransactionException("Project carries no schema");
    }
    draft.manifest().clearFields().addAllFields(project.getSchemaList());
    Set<Integer> remaining = draft.schemaFieldIds();
    ArrayList<DataFragment> fragments = new ArrayList<>(draft.fragments().size());
    for (DataFragment fragment : draft.fragments()) {
      DataFragment.Builder kept = fragment.toBuilder().clearFiles();
      for (DataFile file : fragment.getFilesList()) {
        if (file.getFieldsList().stream().anyMatch(remaining::contains)) {
          kept.addFiles(file);
        }
      }
      fragments.add(kept.getFilesCount() == fragment.getFilesCount() ? fragment : kept.build());
    }
    draft.adoptFragments(fragments);
    draft.setIndices(IndexRetention.retainRelevant(draft.indices(), remaining, draft::fragmentIds));
  }
}
