package dev.lancecommit.chaos.harness;

import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.testing.lance.LanceTables;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicLong;

/**
 * One table of the run: its id in the coordinator's catalog, its location, stock Lance pointed at it (directly at the
 * store, not through the fault proxy: writers' data files are not what is under test) and the harness's own reader of
 * its manifests. Row ids are handed out here so that no two writers ever write the same id.
 */
public final class ChaosTable implements AutoCloseable {
  private final List<String> id;
  private final String location;
  private final LanceTables lance;
  private final TableOperations storage;
  private final AtomicLong nextRowId;

  public ChaosTable(List<String> id, String location, Map<String, String> lanceStorageOptions, ObjectStores stores,
      long firstFreeRowId) {
    this.id = List.copyOf(id);
    this.location = location;
    this.lance = LanceTables.at(location, lanceStorageOptions);
    this.storage = TableOperations.of(stores.resolve(location));
    this.nextRowId = new AtomicLong(firstFreeRowId);
  }

  public List<String> id() {
    return id;
  }

  /** The id joined with {@code $}, as in the REST paths and the Kafka record keys. */
  public String key() {
    return CoordinatorClient.joined(id);
  }

  public String location() {
    return location;
  }

  public LanceTables lance() {
    return lance;
  }

  public TableOperations storage() {
    return storage;
  }

  /** Reserves {@code count} fresh row ids and returns the first. */
  long allocateRowIds(int count) {
    return nextRowId.getAndAdd(count);
  }

  /** The manifest of {@code version} as stored, read with the project's codec (either naming scheme). */
  Optional<ManifestFile> manifest(long version) {
    return storage.readVersion(version);
  }

  @Override
  public void close() {
    lance.close();
  }

  @Override
  public String toString() {
    return key() + " at " + location;
  }
}
