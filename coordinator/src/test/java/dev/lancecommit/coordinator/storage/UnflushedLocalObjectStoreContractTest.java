package dev.lancecommit.coordinator.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A local store that never flushes ({@code store.local.fsync=false}) keeps the whole object-store contract: only
 * durability against a power loss differs. The unflushed writes of a flushing store keep it too.
 */
class UnflushedLocalObjectStoreContractTest extends ObjectStoreContractTest {
  @TempDir
  Path root;

  private LocalObjectStore store;

  @BeforeEach
  void open() {
    store = LocalObjectStore.withFsync(root, false);
  }

  @Override
  protected ObjectStore store() {
    return store;
  }

  @Test
  void unflushedWritesOfAFlushingStoreAreAtomicAndExclusiveToo() throws Exception {
    LocalObjectStore flushing = new LocalObjectStore(root);
    assertThat(flushing.fsync()).isTrue();
    assertThat(store.fsync()).isFalse();
    flushing.putIfAbsentUnflushed("t/_transactions/1-a.txn", bytes("one"));
    assertThatThrownBy(() -> flushing.putIfAbsentUnflushed("t/_transactions/1-a.txn", bytes("two")))
        .isInstanceOf(ObjectAlreadyExistsException.class);
    flushing.putUnflushed("t/_versions/latest_version_hint.json", bytes("{\"version\":1}"));
    flushing.putUnflushed("t/_versions/latest_version_hint.json", bytes("{\"version\":2}"));
    assertThat(flushing.get("t/_transactions/1-a.txn")).hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("one")));
    assertThat(flushing.get("t/_versions/latest_version_hint.json"))
        .hasValueSatisfying(b -> assertThat(b).isEqualTo(bytes("{\"version\":2}")));
    try (var files = Files.list(root.resolve("t/_versions"))) {
      assertThat(files.map(p -> p.getFileName().toString())).containsExactly("latest_version_hint.json");
    }
  }

  private static byte[] bytes(String text) {
    return text.getBytes(StandardCharsets.UTF_8);
  }
}
