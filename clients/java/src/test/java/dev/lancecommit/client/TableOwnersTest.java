package dev.lancecommit.client;

import static org.assertj.core.api.Assertions.assertThat;

import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class TableOwnersTest {
  private static final String LB = "https://coordinator.example:9101";
  private static final TableId ORDERS = TableId.of("sales", "orders");
  private static final TableId ITEMS = TableId.of("sales", "items");

  private Instant now = Instant.parse("2026-12-02T08:00:00Z");
  private final InstantSource clock = () -> now;

  @Test
  void followsTheNamedOwnerPerTable() {
    TableOwners owners = new TableOwners(LB, true, clock);
    assertThat(owners.urlFor(ORDERS)).isEqualTo(LB);
    owners.answered(ORDERS, LB, Optional.of("https://pod-2:9101/"));
    assertThat(owners.urlFor(ORDERS)).isEqualTo("https://pod-2:9101");
    assertThat(owners.urlFor(ITEMS)).isEqualTo(LB);
    // the owner answered itself: stay; it forwarded to a new owner: follow
    owners.answered(ORDERS, "https://pod-2:9101", Optional.empty());
    assertThat(owners.urlFor(ORDERS)).isEqualTo("https://pod-2:9101");
    owners.answered(ORDERS, "https://pod-2:9101", Optional.of("https://pod-3:9101"));
    assertThat(owners.urlFor(ORDERS)).isEqualTo("https://pod-3:9101");
  }

  @Test
  void neverFollowsAnotherSchemeOrWhenTurnedOff() {
    TableOwners owners = new TableOwners(LB, true, clock);
    owners.answered(ORDERS, LB, Optional.of("http://pod-2:9101"));
    owners.answered(ITEMS, LB, Optional.of("not a url"));
    assertThat(owners.urlFor(ORDERS)).isEqualTo(LB);
    assertThat(owners.urlFor(ITEMS)).isEqualTo(LB);

    TableOwners off = new TableOwners(LB, false, clock);
    off.answered(ORDERS, LB, Optional.of("https://pod-2:9101"));
    assertThat(off.urlFor(ORDERS)).isEqualTo(LB);
  }

  @Test
  void anUnreachableOwnerIsLeftForAMinuteForEveryTable() {
    TableOwners owners = new TableOwners(LB, true, clock);
    owners.answered(ORDERS, LB, Optional.of("https://pod-2:9101"));
    owners.answered(ITEMS, LB, Optional.of("https://pod-2:9101"));
    owners.unreachable(ORDERS, "https://pod-2:9101");
    assertThat(owners.urlFor(ORDERS)).isEqualTo(LB);
    assertThat(owners.urlFor(ITEMS)).isEqualTo(LB);

    now = now.plus(TableOwners.UNREACHABLE_FOR).plus(Duration.ofSeconds(1));
    owners.answered(ORDERS, LB, Optional.of("https://pod-2:9101"));
    assertThat(owners.urlFor(ORDERS)).isEqualTo("https://pod-2:9101");
    // the configured URL itself is never left
    owners.unreachable(ITEMS, LB);
    assertThat(owners.urlFor(ITEMS)).isEqualTo(LB);
  }
}
