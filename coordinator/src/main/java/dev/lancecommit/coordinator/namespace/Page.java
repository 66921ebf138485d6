package dev.lancecommit.coordinator.namespace;

import java.util.List;
import java.util.Optional;

/**
 * One page of a listing in its deterministic order. {@code resumeAfter} is present when more items may follow: the
 * next page starts after that item (the last one of this page), so items added or removed meanwhile never cause
 * another item to be skipped or repeated.
 */
public record Page<T>(List<T> items, Optional<T> resumeAfter) {
  public Page {
    items = List.copyOf(items);
  }

  /** The first {@code limit} of {@code items}; {@code items} holds one more than {@code limit} when more follow. */
  static <T> Page<T> of(List<T> items, int limit) {
    if (items.size() > limit) {
      List<T> shown = items.subList(0, limit);
      return new Page<>(shown, Optional.of(shown.get(shown.size() - 1)));
    }
    return new Page<>(items, Optional.empty());
  }

  static void checkLimit(int limit) {
    if (limit < 1) {
      throw new InvalidCatalogInputException("A page limit must be at least 1, got " + limit);
    }
  }
}
