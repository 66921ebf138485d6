package dev.lancecommit.events.consumer;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class FileCheckpointStoreTest {
  @TempDir Path dir;

  @Test
  void checkpointsSurviveReopening() {
    Path file = dir.resolve("nested/checkpoints.jsonl");
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      store.advance("a", 1);
      store.advance("a", 2);
      store.advance("b", 7);
    }
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoints()).containsExactlyInAnyOrderEntriesOf(java.util.Map.of("a", 2L, "b", 7L));
      assertThat(store.checkpoint("c")).isEmpty();
    }
  }

  @Test
  void checkpointsNeverMoveBackwards() {
    try (FileCheckpointStore store = FileCheckpointStore.open(dir.resolve("c.jsonl"))) {
      store.advance("a", 5);
      assertThatThrownBy(() -> store.advance("a", 5)).isInstanceOf(IllegalArgumentException.class);
      assertThatThrownBy(() -> store.advance("a", 4)).hasMessageContaining("cannot move to 4");
      assertThatThrownBy(() -> store.advance("b", 0)).isInstanceOf(IllegalArgumentException.class);
      assertThat(store.checkpoint("a")).hasValue(5);
    }
  }

  @Test
  void aTornLastLineIsDroppedAndTheFileStaysUsable() throws Exception {
    Path file = dir.resolve("c.jsonl");
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      store.advance("a", 3);
    }
    Files.writeString(file, "{\"table_uuid\":\"a\",\"vers", StandardOpenOption.APPEND);
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoint("a")).hasValue(3);
      store.advance("a", 4);
    }
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoint("a")).hasValue(4);
    }
    assertThat(Files.readAllLines(file)).hasSize(2);
  }

  @Test
  void aCompleteLastLineWithoutNewlineIsKept() throws Exception {
    Path file = dir.resolve("c.jsonl");
    Files.writeString(file, "{\"table_uuid\":\"a\",\"version\":9}");
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoint("a")).hasValue(9);
      store.advance("b", 1);
    }
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoints()).containsEntry("a", 9L).containsEntry("b", 1L);
    }
  }

  @Test
  void aCorruptLineInTheMiddleFailsTheOpen() throws Exception {
    Path file = dir.resolve("c.jsonl");
    Files.writeString(file, "{\"table_uuid\":\"a\",\"version\":1}\nnot json\n{\"table_uuid\":\"a\",\"version\":2}\n");
    assertThatThrownBy(() -> FileCheckpointStore.open(file))
        .isInstanceOf(IllegalStateException.class)
        .hasMessageContaining("line 2");
    assertThat(Files.readString(file, StandardCharsets.UTF_8)).contains("not json");
  }

  @Test
  void oneFileServesOneConsumerAtATime() {
    Path file = dir.resolve("c.jsonl");
    try (FileCheckpointStore first = FileCheckpointStore.open(file)) {
      assertThatThrownBy(() -> FileCheckpointStore.open(file)).hasMessageContaining("in use");
      first.advance("a", 1);
    }
    try (FileCheckpointStore again = FileCheckpointStore.open(file)) {
      assertThat(again.checkpoint("a")).hasValue(1);
    }
  }

  @Test
  void theFileIsRewrittenWhenItGrowsLong() throws Exception {
    Path file = dir.resolve("c.jsonl");
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      for (long v = 1; v <= 600; v++) {
        store.advance("a", v);
        store.advance("b", v);
      }
    }
    assertThat(Files.readAllLines(file).size()).isLessThan(1024);
    try (FileCheckpointStore store = FileCheckpointStore.open(file)) {
      assertThat(store.checkpoints()).containsEntry("a", 600L).containsEntry("b", 600L);
    }
  }
}
