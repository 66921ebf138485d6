package dev.lancecommit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.util.List;
import java.util.UUID;

/**
 * A fresh table declared through the coordinator, with Lance (lance-core) pointed at its location. Rows are
 * {@link LanceTables#ROW_SCHEMA} test rows. Close it to release Lance's allocator.
 */
public final class E2eTable implements AutoCloseable {
  private final E2eServices.Service service;
  private final List<String> id;
  private final String location;
  private final LanceTables lance;

  private E2eTable(E2eServices.Service service, List<String> id, String location) {
    this.service = service;
    this.id = id;
    this.location = location;
    this.lance = LanceTables.at(location, service.lanceStorageOptions());
  }

  /** Declares {@code {prefix-namespace}${prefix}_{random}} and returns it; no version exists yet. */
  public static E2eTable declare(E2eServices.Service service, String prefix) {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String namespace = prefix + "_ns_" + suffix;
    List<String> id = List.of(namespace, prefix + "_" + suffix);
    service.api().createNamespace(namespace);
    String location = service.api().declareTable(id);
    return new E2eTable(service, id, location);
  }

  public List<String> id() {
    return id;
  }

  public String location() {
    return location;
  }

  /** The table root on the local file system (local warehouses only). */
  public java.nio.file.Path localRoot() {
    if (location.startsWith("s3://")) {
      throw new IllegalStateException("table " + id + " is not on the local file system: " + location);
    }
    return location.startsWith("file:") ? java.nio.file.Path.of(java.net.URI.create(location))
        : java.nio.file.Path.of(location);
  }

  public LanceTables lance() {
    return lance;
  }

  public CommitApi api() {
    return service.api();
  }

  /** Writes rows {@code firstId..firstId+count-1} with Lance and builds the Overwrite that creates the table. */
  public Transaction createTransaction(long firstId, int count) {
    return TransactionFactory.create(LanceProtos.schema(LanceTables.ROW_SCHEMA),
        LanceProtos.fragments(lance.writeRows(firstId, count)));
  }

  /** Writes rows {@code firstId..firstId+count-1} with Lance and builds an Append on {@code readVersion}. */
  public Transaction appendTransaction(long readVersion, long firstId, int count) {
    return TransactionFactory.append(readVersion, LanceProtos.fragments(lance.writeRows(firstId, count)));
  }

  /** Creates the table at version 1 with rows {@code firstId..firstId+count-1}, through CommitTable. */
  public CommitApi.Response create(long firstId, int count) {
    CommitApi.Response r = api().commit(id, createTransaction(firstId, count));
    assertThat(r.status()).as("create %s: %s", id, r).isEqualTo(200);
    assertThat(r.version()).isEqualTo(1);
    return r;
  }

  /** Appends rows through CommitTable on {@code readVersion} and expects success. */
  public CommitApi.Response append(long readVersion, long firstId, int count) {
    CommitApi.Response r = api().commit(id, appendTransaction(readVersion, firstId, count));
    assertThat(r.status()).as("append to %s on v%s: %s", id, readVersion, r).isEqualTo(200);
    return r;
  }

  public long describedVersion() {
    return api().latestVersion(id);
  }

  @Override
  public void close() {
    lance.close();
  }
}
