package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A real store that runs a test's action once, just before the first put-if-absent whose key matches, to place
 * another writer's update exactly between this writer's read and its write. Everything else passes through.
 */
final class InterleavingStore implements ObjectStore {
  private record Hook(Predicate<String> keys, Runnable action) {}

  private final ObjectStore delegate;
  private final AtomicReference<Hook> hook = new AtomicReference<>();

  InterleavingStore(ObjectStore delegate) {
    this.delegate = delegate;
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

  @Override
  public Optional<byte[]> get(String key) {
    return delegate.get(key);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return delegate.head(key);
  }

  @Override
  public void put(String key, byte[] data) {
    delegate.put(key, data);
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public List<String> listDirectory(String prefix) {
    return delegate.listDirectory(prefix);
  }

  @Override
  public void delete(String key) {
    delegate.delete(key);
  }

  @Override
  public String uri() {
    return delegate.uri();
  }

  @Override
  public String uriOf(String key) {
    return delegate.uriOf(key);
  }

  @Override
  public void close() {
    delegate.close();
  }
}
