package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;

class OwnershipMapTest {

  @Test
  void roundTripsOwnersAndUnownedPartitions() {
    OwnershipMap map = new OwnershipMap(0, Arrays.asList("http://a:1", null, "http://b:2", "http://a:1", null));
    OwnershipMap read = OwnershipMap.decode(map.encode());
    assertThat(read).isEqualTo(map);
    assertThat(read.partitions()).isEqualTo(5);
    assertThat(read.owner(0)).hasValue("http://a:1");
    assertThat(read.owner(1)).isEmpty();
    assertThat(read.owner(7)).isEmpty();
    assertThat(read.inGeneration(9).generation()).isEqualTo(9);
  }

  @Test
  void refusesBytesThatAreNotAMap() {
    ByteBuffer encoded = new OwnershipMap(0, List.of("http://a:1", "http://b:2")).encode();
    ByteBuffer truncated = encoded.duplicate().limit(encoded.limit() - 3);
    assertThatThrownBy(() -> OwnershipMap.decode(truncated)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> OwnershipMap.decode(ByteBuffer.wrap("garbage!!".getBytes(StandardCharsets.UTF_8))))
        .isInstanceOf(IllegalArgumentException.class);
    ByteBuffer badIndex = ByteBuffer.allocate(2 + 4 + 4 + 4).putShort((short) 1).putInt(0).putInt(1).putInt(3).flip();
    assertThatThrownBy(() -> OwnershipMap.decode(badIndex)).hasMessageContaining("names member 3");
  }

  @Test
  void assignorUserDataCarriesBothPartsAndRecognisesForeignData() {
    byte[] url = "http://a:1".getBytes(StandardCharsets.UTF_8);
    ByteBuffer inner = ByteBuffer.wrap(new byte[] {1, 2, 3});
    UrlAdvertisingAssignor.Wrapped both = UrlAdvertisingAssignor.unwrap(UrlAdvertisingAssignor.wrap(url, inner));
    assertThat(both.first()).isEqualTo(url);
    assertThat(both.second()).isEqualTo(ByteBuffer.wrap(new byte[] {1, 2, 3}));

    UrlAdvertisingAssignor.Wrapped noInner = UrlAdvertisingAssignor.unwrap(UrlAdvertisingAssignor.wrap(url, null));
    assertThat(noInner.first()).isEqualTo(url);
    assertThat(noInner.second()).isNull();

    ByteBuffer foreign = ByteBuffer.wrap(new byte[] {0, 0, 0, 9, 9, 9, 9, 9, 9, 9, 9, 9, 9});
    UrlAdvertisingAssignor.Wrapped notOurs = UrlAdvertisingAssignor.unwrap(foreign);
    assertThat(notOurs.first()).isNull();
    assertThat(notOurs.second()).isEqualTo(foreign);
    assertThat(UrlAdvertisingAssignor.unwrap(null).first()).isNull();
  }
}
