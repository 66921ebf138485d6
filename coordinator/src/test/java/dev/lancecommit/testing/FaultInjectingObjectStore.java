package dev.lancecommit.testing;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectTail;
import dev.lancecommit.coordinator.storage.StagedPut;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.Predicate;
import java.util.function.Supplier;

/**
 * Wraps a real store and makes chosen calls fail. A fault throws either {@link When#BEFORE} delegating (the request
 * never reached the store) or {@link When#AFTER} it ("the write landed but the response was lost": the delegate
 * call runs, its result or {@link StoreException} is discarded, and the fault is thrown instead).
 *
 * <pre>{@code
 * store.failNext(Call.PUT_IF_ABSENT, 1, When.AFTER, FaultInjectingObjectStore.outcomeUnknown());
 * }</pre>
 *
 * Thread-safe; faults are consumed in the order they were added. Closing closes the delegate.
 */
public final class FaultInjectingObjectStore implements ObjectStore {

  /** The kinds of call a fault can target. */
  public enum Call { GET, GET_TAIL, GET_RANGE, HEAD, PUT, PUT_IF_ABSENT, LIST, LIST_DIRECTORY, DELETE }

  /** When the fault is thrown relative to the delegate call. */
  public enum When { BEFORE, AFTER }

  private record Fault(When when, Predicate<String> keys, Supplier<? extends RuntimeException> error,
      AtomicInteger remaining) {
    boolean claim(String key) {
      if (!keys.test(key)) {
        return false;
      }
      int left;
      do {
        left = remaining.get();
        if (left <= 0) {
          return false;
        }
      } while (!remaining.compareAndSet(left, left - 1));
      return true;
    }
  }

  @FunctionalInterface
  private interface StoreCall<T> {
    T run();
  }

  /**
   * A call held before it reaches the store until {@link #release()}: a slow request, for making work pile up
   * behind it (e.g. commits queueing while a manifest write is in flight).
   */
  public static final class Hold {
    private final Call call;
    private final Predicate<String> keys;
    private final java.util.concurrent.CountDownLatch held = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.CountDownLatch released = new java.util.concurrent.CountDownLatch(1);
    private final java.util.concurrent.atomic.AtomicBoolean claimed = new java.util.concurrent.atomic.AtomicBoolean();
    private volatile String key;

    private Hold(Call call, Predicate<String> keys) {
      this.call = call;
      this.keys = keys;
    }

    boolean claim(String candidate) {
      if (keys.test(candidate) && claimed.compareAndSet(false, true)) {
        key = candidate;
        return true;
      }
      return false;
    }

    /** Waits until a call is held; false when none came within the time. */
    public boolean awaitHeld(java.time.Duration timeout) throws InterruptedException {
      return held.await(timeout.toMillis(), java.util.concurrent.TimeUnit.MILLISECONDS);
    }

    /** The key of the call held, once one is. */
    public String key() {
      return key;
    }

    /** Lets the held call (and a later one, if none is held yet) go through. */
    public void release() {
      released.countDown();
    }

    void hold() {
      held.countDown();
      try {
        if (!released.await(60, java.util.concurrent.TimeUnit.SECONDS)) {
          throw new IllegalStateException("a " + call + " of " + key + " was held for a minute and never released");
        }
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new StoreUnavailableException("interrupted while held", e);
      }
    }
  }

  private final ObjectStore delegate;
  private final boolean asDelegate;
  private final ConcurrentLinkedQueue<Hold> holds = new ConcurrentLinkedQueue<>();
  private final Map<Call, ConcurrentLinkedQueue<Fault>> faults = new EnumMap<>(Call.class);
  private final Map<Call, AtomicInteger> calls = new EnumMap<>(Call.class);

  public FaultInjectingObjectStore(ObjectStore delegate) {
    this(delegate, false);
  }

  /**
   * {@code asDelegate}: the store stages puts and reports its requests as the delegate does (a local disk writes a
   * staged manifest ahead and is not made of round trips), and the create of a staged put is a
   * {@link Call#PUT_IF_ABSENT} its faults and holds apply to; otherwise it answers as an object store would.
   */
  public FaultInjectingObjectStore(ObjectStore delegate, boolean asDelegate) {
    this.delegate = Objects.requireNonNull(delegate, "delegate");
    this.asDelegate = asDelegate;
    for (Call call : Call.values()) {
      faults.put(call, new ConcurrentLinkedQueue<>());
      calls.put(call, new AtomicInteger());
    }
  }

  /** The next {@code times} calls of kind {@code call} (on any key) throw {@code error.get()}. */
  public FaultInjectingObjectStore failNext(Call call, int times, When when,
      Supplier<? extends RuntimeException> error) {
    return failNext(call, times, when, key -> true, error);
  }

  /**
   * The next {@code times} calls of kind {@code call} whose key (the prefix, for listings) matches {@code keys}
   * throw {@code error.get()}.
   */
  public FaultInjectingObjectStore failNext(Call call, int times, When when, Predicate<String> keys,
      Supplier<? extends RuntimeException> error) {
    if (times <= 0) {
      throw new IllegalArgumentException("times must be positive: " + times);
    }
    faults.get(call).add(new Fault(Objects.requireNonNull(when), Objects.requireNonNull(keys),
        Objects.requireNonNull(error), new AtomicInteger(times)));
    return this;
  }

  /** Holds the next call of kind {@code call} whose key matches {@code keys} until the hold is released. */
  public Hold holdNext(Call call, Predicate<String> keys) {
    Hold hold = new Hold(Objects.requireNonNull(call), Objects.requireNonNull(keys));
    holds.add(hold);
    return hold;
  }

  /** Faults of this kind not yet thrown. */
  public int pendingFaults(Call call) {
    return faults.get(call).stream().mapToInt(f -> Math.max(0, f.remaining().get())).sum();
  }

  /** How many calls of this kind were made (failed ones included). */
  public int calls(Call call) {
    return calls.get(call).get();
  }

  public void clearFaults() {
    faults.values().forEach(ConcurrentLinkedQueue::clear);
    holds.forEach(Hold::release);
    holds.clear();
  }

  public ObjectStore delegate() {
    return delegate;
  }

  /** {@link StoreOutcomeUnknownException} as a fault. */
  public static Supplier<StoreOutcomeUnknownException> outcomeUnknown() {
    return () -> new StoreOutcomeUnknownException("injected fault: response lost", null);
  }

  /** {@link StoreUnavailableException} as a fault. */
  public static Supplier<StoreUnavailableException> unavailable() {
    return () -> new StoreUnavailableException("injected fault: store unavailable", null);
  }

  @Override
  public Optional<byte[]> get(String key) {
    return intercept(Call.GET, key, () -> delegate.get(key));
  }

  @Override
  public Optional<ObjectTail> getTail(String key, int maxBytes) {
    return intercept(Call.GET_TAIL, key, () -> delegate.getTail(key, maxBytes));
  }

  @Override
  public Optional<byte[]> getRange(String key, long offset, int length) {
    return intercept(Call.GET_RANGE, key, () -> delegate.getRange(key, offset, length));
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return intercept(Call.HEAD, key, () -> delegate.head(key));
  }

  @Override
  public void put(String key, byte[] data) {
    intercept(Call.PUT, key, () -> {
      delegate.put(key, data);
      return null;
    });
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    intercept(Call.PUT_IF_ABSENT, key, () -> {
      delegate.putIfAbsent(key, data);
      return null;
    });
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return intercept(Call.LIST, prefix, () -> delegate.list(prefix));
  }

  @Override
  public List<String> listDirectory(String prefix) {
    return intercept(Call.LIST_DIRECTORY, prefix, () -> delegate.listDirectory(prefix));
  }

  @Override
  public void delete(String key) {
    intercept(Call.DELETE, key, () -> {
      delegate.delete(key);
      return null;
    });
  }

  @Override
  public StagedPut stagePutIfAbsent(String key, byte[] data) {
    if (!asDelegate) {
      return ObjectStore.super.stagePutIfAbsent(key, data);
    }
    StagedPut staged = delegate.stagePutIfAbsent(key, data);
    return new StagedPut() {
      @Override
      public void create() {
        intercept(Call.PUT_IF_ABSENT, key, () -> {
          staged.create();
          return null;
        });
      }

      @Override
      public void discard() {
        staged.discard();
      }
    };
  }

  @Override
  public boolean requestsAreRoundTrips() {
    return asDelegate ? delegate.requestsAreRoundTrips() : ObjectStore.super.requestsAreRoundTrips();
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

  private <T> T intercept(Call call, String key, StoreCall<T> action) {
    calls.get(call).incrementAndGet();
    for (Hold hold : holds) {
      if (hold.call == call && hold.claim(key)) {
        holds.remove(hold);
        hold.hold();
        break;
      }
    }
    Fault fault = claim(call, key);
    if (fault == null) {
      return action.run();
    }
    if (fault.when() == When.AFTER) {
      try {
        action.run();
      } catch (StoreException lostResponse) {
        // the caller never learns the real answer: that is the point of an AFTER fault
      }
    }
    throw fault.error().get();
  }

  private Fault claim(Call call, String key) {
    for (Fault fault : faults.get(call)) {
      if (fault.claim(key)) {
        return fault;
      }
    }
    return null;
  }
}
