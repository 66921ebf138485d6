package dev.lancecommit.e2e.managed;

import dev.lancecommit.coordinator.Coordinator;
import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.coordinator.credentials.CredentialsConfig;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.S3ObjectStore;
import dev.lancecommit.testing.S3ProxyFixture;
import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.util.List;
import java.util.UUID;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.ipc.ArrowStreamReader;
import org.apache.arrow.vector.ipc.ArrowStreamWriter;

/**
 * A Coordinator whose warehouse is on s3proxy and which vends the s3proxy keys (credentials.mode=static) in
 * DescribeTable/DeclareTable, so stock clients given only the coordinator's URL can write. Events go to
 * {@code kafkaBootstrap} under a topic of its own ({@code "none"} disables them).
 */
final class ManagedCoordinator implements AutoCloseable {
  private final S3ProxyFixture s3;
  private final Coordinator coordinator;
  private final String topic;
  private final String warehousePrefix;

  private ManagedCoordinator(S3ProxyFixture s3, Coordinator coordinator, String topic, String warehousePrefix) {
    this.s3 = s3;
    this.coordinator = coordinator;
    this.topic = topic;
    this.warehousePrefix = warehousePrefix;
  }

  static ManagedCoordinator start(S3ProxyFixture s3, String kafkaBootstrap) {
    String suffix = UUID.randomUUID().toString().substring(0, 8);
    String prefix = "managed-" + suffix;
    String topic = "lance.commits.managed." + suffix;
    Coordinator coordinator = Coordinator.start(CoordinatorConfig.builder()
        .port(0)
        .warehouse(s3.uri(prefix))
        .kafka(kafkaBootstrap)
        .topic(topic)
        .s3(s3.s3Config())
        .set(CredentialsConfig.MODE, "static")
        .set(CredentialsConfig.STATIC_ACCESS_KEY_ID, s3.accessKey())
        .set(CredentialsConfig.STATIC_SECRET_ACCESS_KEY, s3.secretKey())
        .build());
    return new ManagedCoordinator(s3, coordinator, topic, prefix);
  }

  String restUrl() {
    return coordinator.restUrl();
  }

  String topic() {
    return topic;
  }

  String kafkaBootstrap() {
    return coordinator.kafkaBootstrap();
  }

  /** The default location the coordinator gives {@code namespace$table}. */
  String tableLocation(String namespace, String table) {
    return s3.uri(warehousePrefix + "/" + namespace + "/" + table + ".lance");
  }

  /** The names of the objects directly in the table's {@code _versions/}, read straight from s3proxy. */
  List<String> versionFileNames(String location) {
    String dir = location.substring(("s3://" + s3.bucket() + "/").length()) + "/_versions/";
    return objectsUnder(dir).stream().map(info -> info.key().substring(dir.length())).toList();
  }

  /** Every object under {@code prefix} of the bucket. */
  List<ObjectInfo> objectsUnder(String prefix) {
    try (S3ObjectStore store = S3ObjectStore.create(s3.s3Config(), s3.bucket())) {
      return store.list(prefix);
    }
  }

  /** The key prefix of a table location inside the bucket. */
  String keyOf(String location) {
    return location.substring(("s3://" + s3.bucket() + "/").length());
  }

  /** An in-memory Arrow stream of {@code root}'s single batch, as Dataset.write reads it. */
  static ArrowReader readerOf(VectorSchemaRoot root, BufferAllocator allocator) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    try (ArrowStreamWriter writer = new ArrowStreamWriter(root, null, bytes)) {
      writer.start();
      writer.writeBatch();
      writer.end();
    } catch (IOException e) {
      throw new IllegalStateException(e);
    }
    return new ArrowStreamReader(new ByteArrayInputStream(bytes.toByteArray()), allocator);
  }

  @Override
  public void close() {
    coordinator.close();
  }
}
