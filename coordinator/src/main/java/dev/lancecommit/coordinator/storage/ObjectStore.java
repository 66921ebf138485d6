package dev.lancecommit.coordinator.storage;

import java.util.List;
import java.util.Optional;

/**
 * A blocking key/value view of an object store (S3 bucket or local filesystem). Callers run it on worker threads,
 * never on an event loop.
 *
 * <p>Keys are '/'-separated and relative to the store root: no leading or trailing '/', no empty, "." or ".."
 * segments, and no segment starting with {@value ObjectKeys#RESERVED_SEGMENT_PREFIX} (reserved for in-flight
 * writes). Prefixes name a "directory": {@code list("a/b")} and {@code list("a/b/")} both return the objects under
 * {@code a/b/}, never {@code a/bc}; the empty prefix means the whole store. Invalid keys raise
 * {@link IllegalArgumentException} before anything is sent.
 *
 * <p>Failures are {@link StoreException}s: {@link StoreUnavailableException} when the request certainly had no effect,
 * {@link StoreOutcomeUnknownException} when a write may have been applied, and plain {@link StoreException} for a
 * definite rejection (for example access denied).
 */
public interface ObjectStore extends AutoCloseable {

  /** The object's bytes, or empty when the key does not exist. */
  Optional<byte[]> get(String key);

  /** The object's size and modification time, or empty when the key does not exist. */
  Optional<ObjectInfo> head(String key);

  /**
   * The last {@code maxBytes} bytes of the object (all of it when it is smaller) and its size, or empty when the key
   * does not exist: one ranged read where the store has them (the whole object otherwise).
   */
  default Optional<ObjectTail> getTail(String key, int maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    return get(key).map(bytes -> ObjectTail.of(bytes, maxBytes));
  }

  /**
   * Up to {@code length} bytes from {@code offset} (fewer when the object ends sooner, none past its end), or empty
   * when the key does not exist.
   */
  default Optional<byte[]> getRange(String key, long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("bad range " + offset + "+" + length);
    }
    return get(key).map(bytes -> {
      int from = (int) Math.min(offset, bytes.length);
      return java.util.Arrays.copyOfRange(bytes, from, (int) Math.min((long) bytes.length, from + (long) length));
    });
  }

  /** Writes the object, replacing any existing one. Readers see the old or the new object, never a mix. */
  void put(String key, byte[] data);

  /**
   * Creates the object only if the key does not exist yet. Atomic: of concurrent callers on one key exactly one
   * succeeds, and readers never see a partially written object.
   *
   * @throws ObjectAlreadyExistsException the key exists (this call wrote nothing)
   * @throws StoreOutcomeUnknownException the request may have been applied; read the key back to find out
   * @throws StoreUnavailableException the request was certainly not applied
   */
  void putIfAbsent(String key, byte[] data);

  /**
   * {@link #putIfAbsent} for an object whose loss in a crash of the machine costs nothing, because it is a redundant
   * copy (a version's {@code .txn} file: its manifest carries the transaction inline): the store need not flush it to
   * stable storage before returning. Same atomicity and exclusivity as {@link #putIfAbsent}; on stores whose every
   * write is durable (S3) it is the same call.
   */
  default void putIfAbsentUnflushed(String key, byte[] data) {
    putIfAbsent(key, data);
  }

  /**
   * Prepares a {@link #putIfAbsent} whose bytes are known before the key may be created: what the store can do ahead
   * is done now (a local file system writes and flushes the bytes under a temporary name), so that
   * {@link StagedPut#create()} at that moment costs only the atomic create. By default nothing is done ahead. A staged
   * put that is never created must be {@linkplain StagedPut#discard() discarded}.
   *
   * @throws StoreUnavailableException nothing could be staged (nothing was created)
   */
  default StagedPut stagePutIfAbsent(String key, byte[] data) {
    return StagedPut.deferred(this, key, data);
  }

  /**
   * Removes what staged puts in the directory {@code prefix} left behind without creating their key (the process
   * stopped between {@link #stagePutIfAbsent} and {@link StagedPut#create()}) and that was written before
   * {@code before}. Best effort; a store that stages nothing has nothing to remove.
   *
   * @return how many were removed
   */
  default int removeAbandonedStagedPuts(String prefix, java.time.Instant before) {
    return 0;
  }

  /** {@link #put} for a best-effort object (a hint) whose loss in a crash of the machine costs nothing. */
  default void putUnflushed(String key, byte[] data) {
    put(key, data);
  }

  /** Every object under {@code prefix} (recursively), sorted by key. Empty when there is none. */
  List<ObjectInfo> list(String prefix);

  /**
   * The first {@code maxKeys} objects under {@code prefix} (recursively) in key order: on a store that lists in key
   * order one request however many objects follow (S3 {@code max-keys}); by default the whole listing, cut.
   */
  default List<ObjectInfo> listFirst(String prefix, int maxKeys) {
    List<ObjectInfo> all = list(prefix);
    return all.size() <= maxKeys ? all : List.copyOf(all.subList(0, maxKeys));
  }

  /**
   * Names of the immediate children under {@code prefix/}: objects and "directories" (common prefixes, without a
   * trailing '/'), sorted. Empty when there is none.
   */
  List<String> listDirectory(String prefix);

  /**
   * Whether the store's own listing is not in key order (a local file system, unlike S3). Lance keeps a
   * {@code _versions/latest_version_hint.json} on such stores so that readers need not list every version.
   */
  default boolean listsUnordered() {
    return false;
  }

  /**
   * Whether each request is a network round trip (an object store), so that independent requests are worth
   * running side by side; false for a local file system, where a thread hop costs more than the request.
   */
  default boolean requestsAreRoundTrips() {
    return true;
  }

  /** Deletes the object; deleting an absent key is not an error. */
  void delete(String key);

  /** The root URI of this store, e.g. {@code s3://bucket} or {@code /}. */
  String uri();

  /** The full URI of a key, e.g. {@code s3://bucket/a/b} or {@code /a/b}; the empty key gives {@link #uri()}. */
  String uriOf(String key);

  /** Releases clients and connections. Never throws checked exceptions. */
  @Override
  void close();
}
