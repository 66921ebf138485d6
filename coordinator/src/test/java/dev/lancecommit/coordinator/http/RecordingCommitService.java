package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.table.TableRef;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiFunction;

/**
 * Stands in for the lead's commit path: records every call and answers with whatever the test set. The HTTP tests
 * check the contract around the service, not commits themselves.
 */
final class RecordingCommitService implements CommitService {
  record Call(TableRef table, CommitRequest request, String thread) {}

  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile BiFunction<TableRef, CommitRequest, CompletableFuture<CommitResult>> answer =
      (table, request) -> CompletableFuture.failedFuture(new AssertionError("no answer set"));

  @Override
  public CompletableFuture<CommitResult> commit(TableRef table, CommitRequest request) {
    calls.add(new Call(table, request, Thread.currentThread().getName()));
    return answer.apply(table, request);
  }

  void answerWith(CommitResult result) {
    answer = (table, request) -> CompletableFuture.completedFuture(result);
  }

  void failWith(Throwable failure) {
    answer = (table, request) -> CompletableFuture.failedFuture(failure);
  }

  void throwSynchronously(RuntimeException failure) {
    answer = (table, request) -> {
      throw failure;
    };
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }

  /** The thread each call was made on, in order. */
  List<String> threads() {
    return calls.stream().map(Call::thread).toList();
  }
}
