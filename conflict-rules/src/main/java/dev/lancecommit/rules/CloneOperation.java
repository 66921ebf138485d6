package dev.lancecommit.rules;

import dev.lancecommit.format.FeatureFlags;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;

/**
 * Clone: the first manifest of the clone is the source manifest at ref_version, under the same version number.
 *
 * <ul>
 *   <li>Shallow: the source's files are reached through a new base path pointing at the source root
 *       (lance-format.md section 1.7).
 *   <li>Deep (Lance's {@code deep_clone}, 2026): the writer has already copied every data, deletion and index file
 *       into the new table under the same relative paths, files the source reached through its own base paths
 *       included, so the manifest names them all under the new table's root: base paths, branch and tag cleared,
 *       every {@code base_id} of files and indices unset (Lance's {@code commit_new_dataset}).
 * </ul>
 */
final class CloneOperation {
  private CloneOperation() {}

  static TableState build(TableState source, Transaction txn, CommitContext ctx) {
    Objects.requireNonNull(source, "source");
    if (!txn.hasClone()) {
      throw new IllegalArgumentException("buildClone needs a Clone transaction, got " + txn.getOperationCase());
    }
    Transaction.Clone clone = txn.getClone();
    if (source.version() != clone.getRefVersion()) {
      throw new IllegalArgumentException("Clone names source version " + clone.getRefVersion()
          + " but the manifest given is version " + source.version());
    }
    if (ctx.version() != clone.getRefVersion()) {
      throw new IllegalArgumentException("A clone keeps the source version number " + clone.getRefVersion()
          + ", not " + ctx.version());
    }
    if (clone.getRefPath().isEmpty()) {
      throw new InvalidTransactionException("Clone carries no ref_path (the source table root)");
    }
    return clone.getIsShallow() ? shallow(source, clone, ctx) : deep(source, ctx);
  }

  private static TableState shallow(TableState source, Transaction.Clone clone, CommitContext ctx) {
    Manifest sourceManifest = source.manifest();
    int baseId = 0;
    for (BasePath base : sourceManifest.getBasePathsList()) {
      baseId = Math.max(baseId, base.getId() + 1);
    }
    BasePath.Builder sourceRoot = BasePath.newBuilder()
        .setId(baseId)
        .setPath(clone.getRefPath())
        .setIsDatasetRoot(true);
    if (clone.hasRefName()) {
      sourceRoot.setName(clone.getRefName());
    }

    Manifest.Builder manifest = sourceManifest.toBuilder()
        .setWriterVersion(ctx.writerVersion())
        .clearFragments()
        .addBasePaths(sourceRoot)
        .clearTag()
        .clearIndexSection()
        .clearTransactionSection()
        .setTimestamp(ManifestBuilder.timestamp(ctx.timestamp()))
        .setTransactionFile(ctx.transactionFileName());
    if (clone.hasBranchName()) {
      manifest.setBranch(clone.getBranchName());
    } else {
      manifest.clearBranch();
    }
    for (DataFragment fragment : sourceManifest.getFragmentsList()) {
      manifest.addFragments(rebased(fragment, baseId));
    }
    List<IndexMetadata> indices = new ArrayList<>();
    for (IndexMetadata index : source.indices()) {
      indices.add(index.hasBaseId() ? index : index.toBuilder().setBaseId(baseId).build());
    }
    return new TableState(withFlags(manifest, sourceManifest, ctx), indices);
  }

  /** Lance's deep clone ignores branch_name: the copy is a table of its own, on its main branch. */
  private static TableState deep(TableState source, CommitContext ctx) {
    Manifest sourceManifest = source.manifest();
    Manifest.Builder manifest = sourceManifest.toBuilder()
        .setWriterVersion(ctx.writerVersion())
        .clearFragments()
        .clearBasePaths()
        .clearBranch()
        .clearTag()
        .clearIndexSection()
        .clearTransactionSection()
        .setTimestamp(ManifestBuilder.timestamp(ctx.timestamp()))
        .setTransactionFile(ctx.transactionFileName());
    for (DataFragment fragment : sourceManifest.getFragmentsList()) {
      manifest.addFragments(local(fragment));
    }
    List<IndexMetadata> indices = new ArrayList<>();
    for (IndexMetadata index : source.indices()) {
      indices.add(index.toBuilder().clearBaseId().build());
    }
    return new TableState(withFlags(manifest, sourceManifest, ctx), indices);
  }

  /** The clone is a table of the same kind: a sticky flag of the source (semantic types) stays set. */
  private static Manifest withFlags(Manifest.Builder manifest, Manifest sourceManifest, CommitContext ctx) {
    long sticky = ctx.features().isSemanticTypesTable(sourceManifest) ? ctx.features().semanticTypesFlag() : 0;
    ManifestBuilder.applyFeatureFlags(manifest, FeatureFlags.usesStableRowIds(sourceManifest), ctx.features(), sticky);
    return manifest.build();
  }

  private static DataFragment local(DataFragment fragment) {
    DataFragment.Builder local = fragment.toBuilder().clearFiles();
    for (DataFile file : fragment.getFilesList()) {
      local.addFiles(file.toBuilder().clearBaseId());
    }
    if (fragment.hasDeletionFile()) {
      local.getDeletionFileBuilder().clearBaseId();
    }
    return local.build();
  }

  private static DataFragment rebased(DataFragment fragment, int baseId) {
    DataFragment.Builder rebased = fragment.toBuilder().clearFiles();
    for (DataFile file : fragment.getFilesList()) {
      rebased.addFiles(file.hasBaseId() ? file : file.toBuilder().setBaseId(baseId).build());
    }
    if (fragment.hasDeletionFile() && !fragment.getDeletionFile().hasBaseId()) {
      rebased.getDeletionFileBuilder().setBaseId(baseId);
    }
    return rebased.build();
  }
}
