package dev.lancecommit.coordinator.storage;

/**
 * A {@link ObjectStore#putIfAbsent} prepared before the moment its key may be created
 * ({@link ObjectStore#stagePutIfAbsent}): what a store can do ahead (a local file system writes and flushes the
 * bytes to a temporary file) is done, and {@link #create()} does what must happen at that moment.
 */
public interface StagedPut {

  /**
   * Creates the key with the staged bytes, with {@link ObjectStore#putIfAbsent}'s guarantees and exceptions. Called at
   * most once; a retry after a failure is a plain {@code putIfAbsent}.
   */
  void create();

  /** Releases what staging wrote without creating the key; also safe after {@link #create()} and more than once. */
  void discard();

  /** A put that stages nothing: {@link #create()} is the whole {@code putIfAbsent}. */
  static StagedPut deferred(ObjectStore store, String key, byte[] data) {
    return new StagedPut() {
      @Override
      public void create() {
        store.putIfAbsent(key, data);
      }

      @Override
      public void discard() {}
    };
  }
}
