package dev.lancecommit.coordinator.http;

import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.Executor;

/** Runs catalog and storage calls off the event loop; results come back on the caller's Vert.x context. */
final class Blocking {
  private final Vertx vertx;
  private final Executor executor;

  Blocking(Vertx vertx, Executor executor) {
    this.vertx = vertx;
    this.executor = executor;
  }

  /** Runs {@code work} off the event loop, in the trace context of the request being handled (if any). */
  <T> Future<T> run(Callable<T> untraced) {
    Callable<T> work = HttpTracing.current(vertx).wrap(untraced);
    if (executor == null) {
      return vertx.executeBlocking(work, false);
    }
    Context context = vertx.getOrCreateContext();
    CompletableFuture<T> result;
    try {
      result = CompletableFuture.supplyAsync(() -> call(work), executor);
    } catch (RuntimeException rejected) {
      return Future.failedFuture(rejected);
    }
    return Future.fromCompletionStage(result, context);
  }

  private static <T> T call(Callable<T> work) {
    try {
      return work.call();
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new CompletionException(e);
    }
  }
}
