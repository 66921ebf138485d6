package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.testing.ForwardingObjectStore;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Predicate;

/**
 * A real store that runs a test's action once, just before the first put-if-absent (or delete) whose key matches, to
 * place another writer's update exactly between this writer's read and its write, or to "kill the process" there
 * (an action that throws an {@link Error}, which no catalog code catches). Everything else passes through.
 */
final class InterleavingStore extends ForwardingObjectStore {
  private record Hook(Predicate<String> keys, Runnable action) {}

  /** Thrown by a hook to stand for the coordinator process dying at that point. */
  static final class ProcessKilled extends Error {
    ProcessKilled(String where) {
      super("process killed " + where);
    }
  }

  private final AtomicReference<Hook> createHook = new AtomicReference<>();
  private final AtomicReference<Hook> deleteHook = new AtomicReference<>();

  InterleavingStore(ObjectStore delegate) {
    super(delegate);
  }

  /** Before the next put-if-absent of a key {@code keys} accepts, run {@code action} (once). */
  void beforeNextCreate(Predicate<String> keys, Runnable action) {
    createHook.set(new Hook(keys, action));
  }

  /** Before the next delete of a key {@code keys} accepts, run {@code action} (once). */
  void beforeNextDelete(Predicate<String> keys, Runnable action) {
    deleteHook.set(new Hook(keys, action));
  }

  /** The process dies just before the next put-if-absent of a key {@code keys} accepts. */
  void killBeforeNextCreate(Predicate<String> keys) {
    beforeNextCreate(keys, () -> {
      throw new ProcessKilled("before a put-if-absent");
    });
  }

  boolean hookPending() {
    return createHook.get() != null || deleteHook.get() != null;
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    fire(createHook, key);
    delegate.putIfAbsent(key, data);
  }

  @Override
  public void delete(String key) {
    fire(deleteHook, key);
    delegate.delete(key);
  }

  private static void fire(AtomicReference<Hook> hook, String key) {
    Hook pending = hook.get();
    if (pending != null && pending.keys().test(key) && hook.compareAndSet(pending, null)) {
      pending.action().run();
    }
  }
}
