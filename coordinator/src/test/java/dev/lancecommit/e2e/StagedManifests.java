package dev.lancecommit.e2e;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Optional;
import java.util.UUID;

/** Manifests staged as stock Lance stages them for namespace-managed versioning, and the batch entries naming them. */
public final class StagedManifests {
  private StagedManifests() {}

  /**
   * Writes 5 rows with real Lance and stages the manifest of {@code version} (V2 naming) carrying an Append of them
   * built on {@code readVersion}, next to the table's versions.
   */
  public static Path stage(LanceTables table, long version, long firstId, long readVersion) {
    Transaction txn = TransactionFactory.append(readVersion, LanceProtos.fragments(table.writeRows(firstId, 5)));
    Path versions = Path.of(table.uri()).resolve("_versions");
    try {
      ManifestFile base = ManifestFile.decode(Files.readAllBytes(versions.resolve(
          ManifestNaming.fileName(ManifestNaming.Scheme.V2, version - 1))));
      Path staged = versions.resolve(ManifestNaming.fileName(ManifestNaming.Scheme.V2, version) + "-"
          + UUID.randomUUID());
      Files.write(staged, new ManifestFile(base.manifest().toBuilder().setVersion(version).build(), base.indices(),
          Optional.of(txn)).encode());
      return staged;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A CreateTableVersion entry of a batch: {@code version} of table {@code id} from the manifest staged there. */
  public static JsonObject entry(List<String> id, long version, Path staged) {
    return new JsonObject().put("id", id).put("version", version)
        .put("manifest_path", staged.toString().substring(1)).put("naming_scheme", "V2");
  }
}
