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
}
