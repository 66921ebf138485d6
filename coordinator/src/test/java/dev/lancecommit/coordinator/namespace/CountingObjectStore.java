package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.testing.ForwardingObjectStore;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * A real store that counts the requests made through it, by kind, and how many keys its listings returned (an S3
 * listing returns at most 1,000 keys per request, so a listing whose answer grows with the catalog is a cost that
 * grows too, even when it is one call).
 */
final class CountingObjectStore extends ForwardingObjectStore {
  private final Map<String, Long> counts = new TreeMap<>();

  CountingObjectStore(ObjectStore delegate) {
    super(delegate);
  }

  /** The counts since the last reset: {@code get}, {@code head}, {@code put}, {@code putIfAbsent}, {@code list},
   * {@code listDirectory}, {@code delete}, and {@code listedKeys}. */
  synchronized Map<String, Long> snapshot() {
    return new TreeMap<>(counts);
  }

  synchronized void reset() {
    counts.clear();
  }

  private synchronized void count(String what, long n) {
    counts.merge(what, n, Long::sum);
  }

  @Override
  public Optional<byte[]> get(String key) {
    count("get", 1);
    return delegate.get(key);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    count("head", 1);
    return delegate.head(key);
  }

  @Override
  public void put(String key, byte[] data) {
    count("put", 1);
    delegate.put(key, data);
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    count("putIfAbsent", 1);
    delegate.putIfAbsent(key, data);
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    count("list", 1);
    List<ObjectInfo> result = delegate.list(prefix);
    count("listedKeys", result.size());
    return result;
  }

  @Override
  public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
    count("list", 1);
    List<ObjectInfo> result = delegate.listFirst(prefix, maxKeys);
    count("listedKeys", result.size());
    return result;
  }

  @Override
  public List<String> listDirectory(String prefix) {
    count("listDirectory", 1);
    List<String> result = delegate.listDirectory(prefix);
    count("listedKeys", result.size());
    return result;
  }

  @Override
  public void delete(String key) {
    count("delete", 1);
    delegate.delete(key);
  }
}
