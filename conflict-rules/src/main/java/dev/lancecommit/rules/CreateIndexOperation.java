package dev.lancecommit.rules;

import dev.lancecommit.format.pb.Transaction;

/** CreateIndex (also drop): fragments unchanged; same-name and removed segments replaced by the new indices. */
final class CreateIndexOperation {
  private CreateIndexOperation() {}

  static void apply(ManifestDraft draft, Transaction.CreateIndex createIndex) {
    draft.setIndices(IndexRetention.createIndex(
        draft.indices(), createIndex.getNewIndicesList(), createIndex.getRemovedIndicesList()));
  }
}
