package dev.lancecommit.testing;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectTail;
import java.util.List;
import java.util.Optional;

/** Delegates every call; tests override single methods to build deliberately broken stores. */
public class ForwardingObjectStore implements ObjectStore {
  protected final ObjectStore delegate;

  public ForwardingObjectStore(ObjectStore delegate) {
    this.delegate = delegate;
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
  public Optional<ObjectTail> getTail(String key, int maxBytes) {
    return delegate.getTail(key, maxBytes);
  }

  @Override
  public Optional<byte[]> getRange(String key, long offset, int length) {
    return delegate.getRange(key, offset, length);
  }

  @Override
  public void put(String key, byte[] data) {
    delegate.put(key, data);
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    delegate.putIfAbsent(key, data);
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return delegate.list(prefix);
  }

  @Override
  public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
    return delegate.listFirst(prefix, maxKeys);
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
