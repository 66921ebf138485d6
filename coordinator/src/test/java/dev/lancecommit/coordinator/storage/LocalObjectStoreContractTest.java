package dev.lancecommit.coordinator.storage;

import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.io.TempDir;

class LocalObjectStoreContractTest extends ObjectStoreContractTest {
  @TempDir
  Path root;

  private LocalObjectStore store;

  @BeforeEach
  void open() {
    store = new LocalObjectStore(root);
  }

  @Override
  protected ObjectStore store() {
    return store;
  }
}
