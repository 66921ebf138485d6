package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.testing.ForwardingObjectStore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A real store that runs a test's action once, just before the first put-if-absent whose key matches, to place
 * another writer's update exactly between this writer's read and its write. Everything else passes through.
 */
final class InterleavingStore extends ForwardingObjectStore {
  private record Hook(Predicate<String> keys, Runnable action) {}

  private final AtomicReference<Hook> hook = new AtomicReference<>();

  InterleavingStore(ObjectStore delegate) {
    super(delegate);
  }

  /** Before the next put-if-absent of a key {@code keys} accepts, run {@code action} (once). */
  void beforeNextCreate(Predicate<String> keys, Runnable action) {
    hook.set(new Hook(keys, action));
  }

  boolean hookPending() {
    return hook.get() != null;
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    Hook pending = hook.get();
    if (pending != null && pending.keys().test(key) && hook.compareAndSet(pending, null)) {
      pending.action().run();
    }
    delegate.putIfAbsent(key, data);
  }
}
