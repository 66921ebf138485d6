package dev.lancecommit.client;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.List;
import org.junit.jupiter.api.Test;

class TableIdTest {
  @Test
  void partsAndTheDollarJoinedFormAreOneId() {
    assertThat(TableId.parse("sales$orders")).isEqualTo(TableId.of("sales", "orders"));
    assertThat(TableId.of("a", "b", "c").joined()).isEqualTo("a$b$c");
    assertThat(TableId.of("sales", "orders").parts()).isEqualTo(List.of("sales", "orders"));
  }

  @Test
  void pathSegmentsKeepDollarsAndEncodeTheRest() {
    assertThat(CoordinatorHttp.encode(TableId.of("sales", "orders"))).isEqualTo("sales$orders");
    assertThat(CoordinatorHttp.encode(TableId.of("my sales", "ö/x"))).isEqualTo("my%20sales$%C3%B6%2Fx");
  }

  @Test
  void emptyPartsAndDollarsInsidePartsAreRefused() {
    assertThatThrownBy(() -> TableId.parse("sales$")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> TableId.of("a$b")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TableId(List.of())).isInstanceOf(IllegalArgumentException.class);
  }
}
