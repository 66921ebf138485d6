package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import io.vertx.core.Context;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Supplier;

/**
 * Passes every call to a real store, remembers calls made on a Vert.x event loop (there must be none) and the
 * threads used, and fails every call with an injected exception while one is set.
 */
final class CheckedObjectStore implements ObjectStore {
  private final ObjectStore delegate;
  private final List<String> eventLoopCalls = new CopyOnWriteArrayList<>();
  private final List<String> threads = new CopyOnWriteArrayList<>();
  private final List<String> operations = new CopyOnWriteArrayList<>();
  private final AtomicReference<RuntimeException> fault = new AtomicReference<>();

  CheckedObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
  }

  void injectFault(RuntimeException failure) {
    fault.set(failure);
  }

  void clearFault() {
    fault.set(null);
  }

  List<String> eventLoopCalls() {
    return List.copyOf(eventLoopCalls);
  }

  List<String> threads() {
    return List.copyOf(threads);
  }

  /** Every call so far as "operation key", e.g. "get ns/t.lance/_versions/1.manifest". */
  List<String> operations() {
    return List.copyOf(operations);
  }

  void clearOperations() {
    operations.clear();
  }

  private <T> T check(String operation, Supplier<T> call) {
    threads.add(Thread.currentThread().getName());
    operations.add(operation);
    if (Context.isOnEventLoopThread()) {
      eventLoopCalls.add(operation + " on " + Thread.currentThread().getName());
    }
    RuntimeException injected = fault.get();
    if (injected != null) {
      throw injected;
    }
    return call.get();
  }

  @Override
  public Optional<byte[]> get(String key) {
    return check("get " + key, () -> delegate.get(key));
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return check("head " + key, () -> delegate.head(key));
  }

  @Override
  public void put(String key, byte[] data) {
    check("put " + key, () -> {
      delegate.put(key, data);
      return null;
    });
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    check("putIfAbsent " + key, () -> {
      delegate.putIfAbsent(key, data);
      return null;
    });
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return check("list " + prefix, () -> delegate.list(prefix));
  }

  @Override
  public List<String> listDirectory(String prefix) {
    return check("listDirectory " + prefix, () -> delegate.listDirectory(prefix));
  }

  @Override
  public void delete(String key) {
    check("delete " + key, () -> {
      delegate.delete(key);
      return null;
    });
  }

  @Override
  public boolean listsUnordered() {
    return delegate.listsUnordered();
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
