package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.ObjectTail;
import dev.lancecommit.coordinator.storage.StagedPut;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.SpanKind;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Scope;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.function.UnaryOperator;
import java.util.function.Supplier;

/**
 * An {@link ObjectStore} that times every call into {@code lance_store_request_duration_seconds{store,operation,
 * outcome}} and, inside a traced operation (a commit's phase, a request), makes a CLIENT span per call. Outcomes:
 * {@code ok}, {@code not_found} (a get or head of an absent key), {@code exists} (put-if-absent refused),
 * {@code unavailable}, {@code unknown} (a write that may have landed), {@code error}.
 */
public final class ObservedObjectStore implements ObjectStore {
  static final String DURATION = "lance.store.request.duration";

  private final ObjectStore delegate;
  private final Tracer tracer;
  private final String store;
  private final Meter.MeterProvider<Timer> timers;

  public ObservedObjectStore(ObjectStore delegate, MeterRegistry registry, Tracer tracer) {
    this.delegate = delegate;
    this.tracer = tracer;
    this.store = delegate.uri().startsWith("s3://") ? "s3" : "local";
    this.timers = Timer.builder(DURATION)
        .description("Object store calls by store kind, operation and outcome")
        .tag("store", store)
        .serviceLevelObjectives(CommitTelemetry.LATENCY_BUCKETS)
        .withRegistry(registry);
  }

  /** The decorator to hand {@code ObjectStores}. */
  public static UnaryOperator<ObjectStore> decorator(MeterRegistry registry, Tracer tracer) {
    return store -> new ObservedObjectStore(store, registry, tracer);
  }

  @Override
  public Optional<byte[]> get(String key) {
    return call("get", key, () -> delegate.get(key), Optional::isEmpty);
  }

  /** A ranged read of the delegate (an S3 range GET), not the whole object: file checks read footers this way. */
  @Override
  public Optional<ObjectTail> getTail(String key, int maxBytes) {
    return call("get_range", key, () -> delegate.getTail(key, maxBytes), Optional::isEmpty);
  }

  @Override
  public Optional<byte[]> getRange(String key, long offset, int length) {
    return call("get_range", key, () -> delegate.getRange(key, offset, length), Optional::isEmpty);
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    return call("head", key, () -> delegate.head(key), Optional::isEmpty);
  }

  @Override
  public void put(String key, byte[] data) {
    call("put", key, () -> {
      delegate.put(key, data);
      return null;
    }, none -> false);
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    call("put_if_absent", key, () -> {
      delegate.putIfAbsent(key, data);
      return null;
    }, none -> false);
  }

  @Override
  public void putIfAbsentUnflushed(String key, byte[] data) {
    call("put_if_absent", key, () -> {
      delegate.putIfAbsentUnflushed(key, data);
      return null;
    }, none -> false);
  }

  @Override
  public int removeAbandonedStagedPuts(String prefix, java.time.Instant before) {
    return delegate.removeAbandonedStagedPuts(prefix, before);
  }

  /** Staging is timed as {@code stage_put_if_absent}; the create that follows as {@code put_if_absent}. */
  @Override
  public StagedPut stagePutIfAbsent(String key, byte[] data) {
    StagedPut staged = call("stage_put_if_absent", key, () -> delegate.stagePutIfAbsent(key, data), none -> false);
    return new StagedPut() {
      @Override
      public void create() {
        call("put_if_absent", key, () -> {
          staged.create();
          return null;
        }, none -> false);
      }

      @Override
      public void discard() {
        staged.discard();
      }
    };
  }

  @Override
  public void putUnflushed(String key, byte[] data) {
    call("put", key, () -> {
      delegate.putUnflushed(key, data);
      return null;
    }, none -> false);
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    return call("list", prefix, () -> delegate.list(prefix), none -> false);
  }

  @Override
  public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
    return call("list", prefix, () -> delegate.listFirst(prefix, maxKeys), none -> false);
  }

  @Override
  public List<String> listDirectory(String prefix) {
    return call("list_directory", prefix, () -> delegate.listDirectory(prefix), none -> false);
  }

  @Override
  public boolean listsUnordered() {
    return delegate.listsUnordered();
  }

  @Override
  public boolean requestsAreRoundTrips() {
    return delegate.requestsAreRoundTrips();
  }

  @Override
  public void delete(String key) {
    call("delete", key, () -> {
      delegate.delete(key);
      return null;
    }, none -> false);
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

  private <T> T call(String operation, String key, Supplier<T> work, java.util.function.Predicate<T> notFound) {
    Span span = null;
    Scope scope = null;
    if (Span.current().getSpanContext().isValid()) {
      span = tracer.spanBuilder("lance.store " + operation).setSpanKind(SpanKind.CLIENT)
          .setAttribute("lance.store", store)
          .setAttribute("lance.store.key", key)
          .startSpan();
      scope = span.makeCurrent();
    }
    long started = System.nanoTime();
    String outcome = "error";
    try {
      T result = work.get();
      outcome = notFound.test(result) ? "not_found" : "ok";
      return result;
    } catch (ObjectAlreadyExistsException e) {
      outcome = "exists";
      throw e;
    } catch (StoreUnavailableException e) {
      outcome = "unavailable";
      throw e;
    } catch (StoreOutcomeUnknownException e) {
      outcome = "unknown";
      throw e;
    } finally {
      timers.withTags("operation", operation, "outcome", outcome)
          .record(System.nanoTime() - started, TimeUnit.NANOSECONDS);
      if (span != null) {
        scope.close();
        span.setAttribute("lance.store.outcome", outcome);
        if (!outcome.equals("ok") && !outcome.equals("not_found") && !outcome.equals("exists")) {
          span.setStatus(StatusCode.ERROR, outcome);
        }
        span.end();
      }
    }
  }

  @Override
  public String toString() {
    return delegate.toString();
  }
}
