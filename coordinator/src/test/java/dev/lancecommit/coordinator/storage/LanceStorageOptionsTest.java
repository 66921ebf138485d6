package dev.lancecommit.coordinator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.testing.S3ProxyFixture;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.lance.Dataset;
import org.lance.ReadOptions;
import org.lance.WriteParams;

/** Real Lance (Rust object_store) reaches s3proxy with {@link S3ProxyFixture#lanceStorageOptions()}. */
class LanceStorageOptionsTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  @Test
  void lanceCreatesAndReopensADatasetOnS3ProxyAndOurStoreSeesItsManifest() {
    String uri = S3.uri("lance/t1");
    Schema schema = new Schema(List.of(Field.nullable("id", new ArrowType.Int(64, true))));
    WriteParams params = new WriteParams.Builder()
        .withStorageOptions(S3.lanceStorageOptions())
        .withMode(WriteParams.WriteMode.CREATE)
        .build();

    try (BufferAllocator allocator = new RootAllocator()) {
      try (Dataset created = Dataset.create(allocator, uri, schema, params)) {
        assertThat(created.version()).isEqualTo(1);
      }
      ReadOptions read = new ReadOptions.Builder().setStorageOptions(S3.lanceStorageOptions()).build();
      try (Dataset reopened = Dataset.open(allocator, uri, read)) {
        assertThat(reopened.version()).isEqualTo(1);
        assertThat(reopened.getSchema().getFields()).extracting(Field::getName).containsExactly("id");
      }
    }

    try (S3ObjectStore store = S3ObjectStore.create(S3.s3Config(), S3.bucket())) {
      assertThat(store.listDirectory("lance/t1")).contains("_versions");
      assertThat(store.list("lance/t1/_versions")).extracting(ObjectInfo::key)
          .anySatisfy(key -> assertThat(key).endsWith(".manifest"));
    }
  }
}
