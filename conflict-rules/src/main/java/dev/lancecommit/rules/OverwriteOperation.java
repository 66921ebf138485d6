package dev.lancecommit.rules;

import dev.lancecommit.format.pb.Transaction;
import java.util.List;

/**
 * Overwrite: a new schema and only the transaction's fragments, ids restarting at 0; every index is dropped;
 * config_upsert_values are merged into the config. initial_bases are registered by {@link ManifestBuilder} when
 * the overwrite creates the table and refused otherwise.
 */
final class OverwriteOperation {
  private OverwriteOperation() {}

  static void apply(ManifestDraft draft, Transaction.Overwrite overwrite) {
    if (!draft.creating() && overwrite.getInitialBasesCount() > 0) {
      throw new InvalidTransactionException(
          "Overwrite of an existing table cannot register new bases (initial_bases is only for creation)");
    }
    if (overwrite.getSchemaCount() == 0) {
      throw new InvalidTransactionException("Overwrite carries no schema");
    }
    draft.manifest()
        .clearFields()
        .addAllFields(overwrite.getSchemaList())
        .clearSchemaMetadata()
        .putAllSchemaMetadata(overwrite.getSchemaMetadataMap())
        .putAllConfig(overwrite.getConfigUpsertValuesMap());
    if (!draft.creating()) {
      String written = StorageVersions.infer(overwrite.getFragmentsList());
      if (written != null) {
        // Rust keeps the previous format unless the writer asked for one; the new files are what it asked for.
        draft.manifest().getDataFormatBuilder().setFileFormat("lance").setVersion(written);
      }
    }
    draft.restartFragmentIds();
    draft.setFragments(draft.admitNewFragments(overwrite.getFragmentsList()));
    draft.setIndices(List.of());
  }
}
