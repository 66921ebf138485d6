package dev.lancecommit.coordinator.storage;

import dev.lancecommit.testing.S3ProxyFixture;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.extension.RegisterExtension;

/** The contract against a real S3 API (s3proxy in-process). */
class S3ObjectStoreContractTest extends ObjectStoreContractTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  private static S3ObjectStore store;

  @BeforeAll
  static void open() {
    store = S3ObjectStore.create(S3.s3Config(), S3.bucket());
  }

  @AfterAll
  static void close() {
    store.close();
  }

  @Override
  protected ObjectStore store() {
    return store;
  }
}
