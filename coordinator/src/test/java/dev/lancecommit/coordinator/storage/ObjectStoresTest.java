package dev.lancecommit.coordinator.storage;

import static java.nio.charset.StandardCharsets.UTF_8;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectStoresTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  @TempDir
  Path dir;

  private ObjectStores stores;

  @BeforeEach
  void open() {
    stores = new ObjectStores(S3.s3Config());
  }

  @AfterEach
  void close() {
    stores.close();
  }

  @Test
  void s3LocationsGiveTheBucketStoreAndThePrefixAsRootKey() {
    StorageLocation location = stores.resolve("s3://" + S3.bucket() + "/warehouse/ns/");

    assertThat(location.store()).isInstanceOf(S3ObjectStore.class);
    assertThat(((S3ObjectStore) location.store()).bucket()).isEqualTo(S3.bucket());
    assertThat(location.rootKey()).isEqualTo("warehouse/ns");
    assertThat(location.key("t1/_versions")).isEqualTo("warehouse/ns/t1/_versions");
    assertThat(location.uri("t1")).isEqualTo("s3://" + S3.bucket() + "/warehouse/ns/t1");
    assertThat(location.uri()).isEqualTo("s3://" + S3.bucket() + "/warehouse/ns");
  }

  @Test
  void oneStorePerBucket() {
    StorageLocation a = stores.resolve("s3://bucket-one/a");
    StorageLocation b = stores.resolve("s3://bucket-one/b/c");
    StorageLocation other = stores.resolve("s3://bucket-two");

    assertThat(a.store()).isSameAs(b.store());
    assertThat(other.store()).isNotSameAs(a.store());
    assertThat(other.rootKey()).isEmpty();
    assertThat(other.uri("x")).isEqualTo("s3://bucket-two/x");
  }

  @Test
  void writesThroughAnS3LocationLandUnderItsPrefix() {
    StorageLocation location = stores.resolve(S3.uri("wh"));
    location.store().putIfAbsent(location.key("t/file"), "hello".getBytes(UTF_8));

    try (S3ObjectStore direct = S3ObjectStore.create(S3.s3Config(), S3.bucket())) {
      assertThat(direct.get("wh/t/file")).hasValueSatisfying(v -> assertThat(v).isEqualTo("hello".getBytes(UTF_8)));
    }
  }

  @Test
  void absolutePathsAndFileUrisGiveALocalStoreAtTheFilesystemRoot() throws IOException {
    String path = dir.resolve("wh").toString();
    StorageLocation plain = stores.resolve(path);
    StorageLocation fileUri = stores.resolve(dir.resolve("wh").toUri().toString());

    assertThat(plain.store()).isInstanceOf(LocalObjectStore.class);
    assertThat(((LocalObjectStore) plain.store()).root()).isEqualTo(dir.getRoot());
    assertThat(plain.rootKey()).isEqualTo(path.substring(1));
    assertThat(fileUri.store()).isSameAs(plain.store());
    assertThat(fileUri.rootKey()).isEqualTo(plain.rootKey());
    assertThat(plain.uri("t1")).isEqualTo(path + "/t1");

    plain.store().put(plain.key("t1/data.bin"), "bytes".getBytes(UTF_8));
    assertThat(Files.readString(dir.resolve("wh/t1/data.bin"))).isEqualTo("bytes");
  }

  @Test
  void fileUriWithThreeSlashesAndTrailingSlashIsAccepted() {
    StorageLocation location = stores.resolve("file:///srv/lake/");
    assertThat(location.rootKey()).isEqualTo("srv/lake");
    assertThat(location.uri("t")).isEqualTo("/srv/lake/t");
    assertThat(stores.resolve("/").rootKey()).isEmpty();
  }

  @ParameterizedTest
  @ValueSource(strings = {"relative/path", "warehouse", "./x", "gs://bucket/x", "hdfs://nn/x", "s3a://b/x",
      "http://host/x", "s3://", "s3:///key", "s3://bad bucket/x", "s3://b/a/../c", "file://host/x", "/a/../b", ""})
  void rejectsLocationsItCannotServe(String location) {
    assertThatThrownBy(() -> stores.resolve(location))
        .isInstanceOf(IllegalArgumentException.class)
        .message().isNotBlank();
  }

  @Test
  void errorMessagesSayWhatIsWrong() {
    assertThatThrownBy(() -> stores.resolve("relative/path")).hasMessageContaining("not relative");
    assertThatThrownBy(() -> stores.resolve("gs://bucket/x"))
        .hasMessageContaining("unsupported")
        .hasMessageContaining("'gs'");
    assertThatThrownBy(() -> stores.resolve("s3:///key")).hasMessageContaining("no bucket");
  }

  @Test
  void s3LocationsNeedAnS3Configuration() {
    try (ObjectStores localOnly = ObjectStores.localOnly()) {
      assertThatThrownBy(() -> localOnly.resolve("s3://bucket/x"))
          .isInstanceOf(IllegalArgumentException.class)
          .hasMessageContaining("no S3 configuration");
      assertThat(localOnly.resolve(dir.toString()).store()).isInstanceOf(LocalObjectStore.class);
    }
  }

  @Test
  void storageLocationsResolveRelativePaths() {
    StorageLocation warehouse = stores.resolve("s3://b/wh");
    StorageLocation table = warehouse.resolve("ns/t1");

    assertThat(table.rootKey()).isEqualTo("wh/ns/t1");
    assertThat(table.key("")).isEqualTo("wh/ns/t1");
    assertThat(table.key("_versions/1.manifest")).isEqualTo("wh/ns/t1/_versions/1.manifest");
    assertThatThrownBy(() -> table.key("/abs")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> table.key("../escape")).isInstanceOf(IllegalArgumentException.class);
  }
}
