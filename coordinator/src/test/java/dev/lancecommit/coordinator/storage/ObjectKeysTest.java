package dev.lancecommit.coordinator.storage;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

class ObjectKeysTest {

  @ParameterizedTest
  @ValueSource(strings = {"a", "a/b", "_versions/1.manifest", "a/.b", "a/..b", "a/b..", "..a/b", ".a", "a/.tmp",
      "a/.tmpx-1", "a/x.tmp-1", "a/b/c/d.lance"})
  void aKeyOfNamedSegmentsIsValid(String key) {
    assertThat(ObjectKeys.checkKey(key)).isEqualTo(key);
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "/a", "a/", "a//b", ".", "..", "./a", "a/./b", "a/../b", "a/.", "a/..", ".tmp-x",
      "a/.tmp-x/b", "a/.tmp-", "a\0b"})
  void anEmptyDotReservedOrNulSegmentIsRefused(String key) {
    assertThatThrownBy(() -> ObjectKeys.checkKey(key)).isInstanceOf(IllegalArgumentException.class)
        .hasMessageContaining("object key");
  }
}
