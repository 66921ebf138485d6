package dev.lancecommit.coordinator.concurrent;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.Executor;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;

/** Work that runs at most once: by the pool, by the first caller that needs it, or never. */
class ClaimableTaskTest {
  private final AtomicInteger runs = new AtomicInteger();
  private final List<Runnable> parked = new ArrayList<>();

  @Test
  void workNotStartedIsRunByTheCallerThatNeedsItAndNotAgainByThePool() {
    ClaimableTask<Integer> task = ClaimableTask.start(runs::incrementAndGet, parked::add);
    assertThat(task.runOrAwait()).isEqualTo(1);
    parked.forEach(Runnable::run);
    assertThat(runs).hasValue(1);
    assertThat(task.runOrAwait()).isEqualTo(1);
  }

  @Test
  void workCancelledBeforeItStartsNeverRunsAndAnswersTheStandIn() {
    ClaimableTask<Integer> task = ClaimableTask.start(runs::incrementAndGet, parked::add);
    assertThat(task.cancelOrAwait(-1)).isEqualTo(-1);
    parked.forEach(Runnable::run);
    assertThat(runs).hasValue(0);
    assertThat(task.runOrAwait()).isEqualTo(-1);
    assertThat(task.cancel(-2)).isFalse();
  }

  @Test
  void workRefusedByAFullPoolIsLeftToTheCaller() {
    Executor full = command -> {
      throw new RejectedExecutionException("full");
    };
    assertThat(ClaimableTask.start(runs::incrementAndGet, full).runOrAwait()).isEqualTo(1);
    assertThat(ClaimableTask.start(runs::incrementAndGet, full).cancelOrAwait(0)).isEqualTo(0);
    assertThat(runs).hasValue(1);
  }

  @Test
  void workUnderWayIsWaitedForByBothKindsOfCaller() throws Exception {
    CountDownLatch started = new CountDownLatch(1);
    CountDownLatch proceed = new CountDownLatch(1);
    ClaimableTask<String> task = ClaimableTask.start(() -> {
      started.countDown();
      await(proceed);
      return "done";
    }, command -> new Thread(command).start());
    assertThat(started.await(10, TimeUnit.SECONDS)).isTrue();
    assertThat(task.cancel("instead")).isFalse();
    CompletableFuture<String> seen = new CompletableFuture<>();
    task.whenSucceeded(seen::complete);
    assertThat(seen).isNotDone();
    proceed.countDown();
    assertThat(task.cancelOrAwait("instead")).isEqualTo("done");
    assertThat(task.runOrAwait()).isEqualTo("done");
    // the action runs on the thread that finished the work, possibly just after the callers above were answered
    assertThat(seen.get(10, TimeUnit.SECONDS)).isEqualTo("done");
  }

  @Test
  void aFailureIsThrownAsItWasAndSkipsTheSuccessAction() {
    ClaimableTask<String> task = ClaimableTask.start(() -> {
      throw new IllegalStateException("broken");
    }, Runnable::run);
    assertThatThrownBy(task::runOrAwait).isInstanceOf(IllegalStateException.class).hasMessage("broken");
    assertThatThrownBy(() -> task.cancelOrAwait("instead")).isInstanceOf(IllegalStateException.class);
    AtomicReference<String> seen = new AtomicReference<>("untouched");
    task.whenSucceeded(seen::set);
    assertThat(seen.get()).isEqualTo("untouched");
  }

  @Test
  void aDoneTaskAnswersItsValue() {
    ClaimableTask<String> task = ClaimableTask.done("known");
    assertThat(task.cancelOrAwait("instead")).isEqualTo("known");
    assertThat(task.cancel("instead")).isFalse();
  }

  private static void await(CountDownLatch latch) {
    try {
      latch.await(10, TimeUnit.SECONDS);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
