package dev.lancecommit.coordinator.publication;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.publication.PendingVersions.EventItem;
import dev.lancecommit.coordinator.publication.PendingVersions.GoneItem;
import dev.lancecommit.coordinator.publication.PendingVersions.Item;
import dev.lancecommit.events.CommitEvent;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;

class PendingVersionsTest {
  private final PendingVersions pending = new PendingVersions();

  @Test
  void keepsEventsInVersionOrderWhateverTheArrivalOrder() {
    pending.offer(event(5, "live"), true, 0);
    pending.offer(event(3, "live"), true, 0);
    pending.offer(event(4, null), false, 0);

    assertThat(versions()).containsExactly(3L, 4L, 5L);
    assertThat(pending.eventCount()).isEqualTo(3);
  }

  @Test
  void refusesVersionsAtOrBelowTheFloorAndDuplicates() {
    assertThat(pending.offer(event(2, null), false, 2)).isFalse();
    assertThat(pending.offer(event(3, null), false, 2)).isTrue();
    assertThat(pending.offer(event(3, null), false, 2)).isFalse();
    assertThat(pending.eventCount()).isEqualTo(1);
  }

  @Test
  void aLiveEventReplacesARebuiltOneButNotTheOtherWayRound() {
    pending.offer(event(3, null), false, 0);
    assertThat(pending.offer(event(3, "alice"), true, 0)).isTrue();
    assertThat(pending.offer(event(3, null), false, 0)).isFalse();

    assertThat(pending.eventCount()).isEqualTo(1);
    assertThat(((EventItem) pending.first()).event().actor()).isEqualTo("alice");
  }

  @Test
  void goneRangesFillOnlyTheHolesBetweenQueuedEvents() {
    pending.offer(event(4, "live"), true, 0);
    pending.offer(event(7, "live"), true, 0);
    pending.offerGone(2, 9, 0);

    assertThat(pending.items()).containsExactly(
        new GoneItem(2, 3), item(4), new GoneItem(5, 6), item(7), new GoneItem(8, 9));
    assertThat(pending.eventCount()).isEqualTo(2);
  }

  @Test
  void goneRangesStartAboveTheFloorAndDoNotOverlapEarlierOnes() {
    pending.offerGone(1, 5, 2);
    pending.offerGone(4, 8, 2);

    assertThat(pending.items()).containsExactly(new GoneItem(3, 5), new GoneItem(6, 8));
  }

  @Test
  void anEventInsideAGoneRangeSplitsIt() {
    pending.offerGone(2, 8, 0);
    assertThat(pending.offer(event(5, "live"), true, 0)).isTrue();

    assertThat(pending.items()).containsExactly(new GoneItem(2, 4), item(5), new GoneItem(6, 8));
  }

  @Test
  void evictionDropsTheNewestEventsAndKeepsGoneRanges() {
    for (long v = 1; v <= 5; v++) {
      pending.offer(event(v, "live"), true, 0);
    }
    pending.offerGone(6, 6, 0);

    assertThat(pending.evictNewestAbove(2)).isEqualTo(3);
    assertThat(pending.items()).containsExactly(item(1), item(2), new GoneItem(6, 6));
    assertThat(pending.evictNewestAbove(2)).isZero();
  }

  @Test
  void droppingThroughAFloorKeepsTheUpperPartOfAGoneRange() {
    pending.offerGone(1, 4, 0);
    pending.offer(event(5, "live"), true, 0);
    pending.dropThrough(2);

    assertThat(pending.items()).containsExactly(new GoneItem(3, 4), item(5));
    pending.removeFirst();
    pending.removeFirst();
    assertThat(pending.isEmpty()).isTrue();
    assertThat(pending.eventCount()).isZero();
  }

  private List<Long> versions() {
    return pending.items().stream().map(Item::first).toList();
  }

  private EventItem item(long version) {
    return (EventItem) pending.items().stream().filter(i -> i.first() == version).findFirst().orElseThrow();
  }

  private static CommitEvent event(long version, String actor) {
    return CommitEvent.builder()
        .tableId(List.of("ns", "t"))
        .tableUuid("uuid-t")
        .location("/w/ns/t.lance")
        .version(version)
        .readVersion(version - 1)
        .operation("Append")
        .manifestPath("/w/ns/t.lance/_versions/" + version + ".manifest")
        .committedAt(Instant.EPOCH)
        .actor(actor)
        .build();
  }
}
