package dev.lancecommit.coordinator.publication;

import dev.lancecommit.events.CommitEvent;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.NavigableSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * The versions of one table waiting to be published, keyed by version: events, and ranges of versions that are gone
 * from storage (cleaned up) and will never have one. The sender takes {@link #first()} only when it is the version
 * right after the last one published, so events leave in version order and a missing version holds back the ones
 * after it until the reconciler supplies it (or shows it is gone).
 *
 * <p>Not thread-safe: the outbox guards each instance with its table's lock.
 */
final class PendingVersions {

  /** One entry: an event or a gone range, covering versions {@link #first()} to {@link #last()}. */
  sealed interface Item permits EventItem, GoneItem {
    long first();

    long last();
  }

  /**
   * An event to publish.
   *
   * @param live true when it came from the commit path (it carries the actor and trace id), false when rebuilt from
   *     storage
   */
  record EventItem(CommitEvent event, boolean live) implements Item {
    @Override
    public long first() {
      return event.version();
    }

    @Override
    public long last() {
      return event.version();
    }
  }

  /** Versions {@code first..last} are not in storage although a later version is: nothing to publish for them. */
  record GoneItem(long first, long last) implements Item {
    GoneItem {
      if (first > last) {
        throw new IllegalArgumentException("empty range " + first + ".." + last);
      }
    }
  }

  private final TreeMap<Long, Item> items = new TreeMap<>();
  private int events;

  /**
   * Adds an event unless its version is at or below {@code floor} (published or being published). A live event
   * replaces a rebuilt one of the same version; otherwise the first one offered stays.
   *
   * @return true if the event is now queued
   */
  boolean offer(CommitEvent event, boolean live, long floor) {
    long version = event.version();
    if (version <= floor) {
      return false;
    }
    Map.Entry<Long, Item> at = items.floorEntry(version);
    if (at != null && at.getValue().last() >= version) {
      Item existing = at.getValue();
      if (existing instanceof EventItem queued) {
        if (!live || queued.live()) {
          return false;
        }
        items.put(version, new EventItem(event, true));
        return true;
      }
      // a gone range covers it: the version exists after all (an event describes it), so split the range
      GoneItem gone = (GoneItem) existing;
      items.remove(gone.first());
      if (gone.first() < version) {
        items.put(gone.first(), new GoneItem(gone.first(), version - 1));
      }
      if (version < gone.last()) {
        items.put(version + 1, new GoneItem(version + 1, gone.last()));
      }
    }
    items.put(version, new EventItem(event, live));
    events++;
    return true;
  }

  /** Marks {@code first..last} gone, above {@code floor} and wherever nothing is queued yet. */
  void offerGone(long first, long last, long floor) {
    long cursor = Math.max(first, floor + 1);
    if (cursor > last) {
      return;
    }
    Map.Entry<Long, Item> before = items.floorEntry(cursor);
    if (before != null && before.getValue().last() >= cursor) {
      cursor = before.getValue().last() + 1;
    }
    List<Item> inside = new ArrayList<>(items.subMap(cursor, true, last, true).values());
    for (Item item : inside) {
      if (item.first() > cursor) {
        items.put(cursor, new GoneItem(cursor, item.first() - 1));
      }
      cursor = Math.max(cursor, item.last() + 1);
    }
    if (cursor <= last) {
      items.put(cursor, new GoneItem(cursor, last));
    }
  }

  /** The lowest queued entry, or null. */
  Item first() {
    Map.Entry<Long, Item> first = items.firstEntry();
    return first == null ? null : first.getValue();
  }

  /** Removes the lowest entry. */
  void removeFirst() {
    Map.Entry<Long, Item> first = items.pollFirstEntry();
    if (first != null && first.getValue() instanceof EventItem) {
      events--;
    }
  }

  /** Drops every entry at or below {@code floor} (a gone range reaching above it keeps its upper part). */
  void dropThrough(long floor) {
    while (!items.isEmpty() && items.firstKey() <= floor) {
      Item item = items.firstEntry().getValue();
      removeFirst();
      if (item instanceof GoneItem gone && gone.last() > floor) {
        items.put(floor + 1, new GoneItem(floor + 1, gone.last()));
      }
    }
  }

  /**
   * Drops the newest events until at most {@code bound} remain.
   *
   * @return how many were dropped
   */
  int evictNewestAbove(int bound) {
    int evicted = 0;
    while (events > bound) {
      Map.Entry<Long, Item> newest = items.lastEntry();
      while (!(newest.getValue() instanceof EventItem)) {
        newest = items.lowerEntry(newest.getKey());
      }
      items.remove(newest.getKey());
      events--;
      evicted++;
    }
    return evicted;
  }

  /** The oldest queued event (the lowest version that is not a gone range), or null. */
  CommitEvent firstEvent() {
    for (Item item : items.values()) {
      if (item instanceof EventItem e) {
        return e.event();
      }
    }
    return null;
  }

  int eventCount() {
    return events;
  }

  boolean isEmpty() {
    return items.isEmpty();
  }

  /** The versions of queued events, ascending. */
  NavigableSet<Long> eventVersions() {
    NavigableSet<Long> versions = new TreeSet<>();
    for (Item item : items.values()) {
      if (item instanceof EventItem) {
        versions.add(item.first());
      }
    }
    return versions;
  }

  /** Every entry, ascending (a copy). */
  List<Item> items() {
    return List.copyOf(items.values());
  }
}
