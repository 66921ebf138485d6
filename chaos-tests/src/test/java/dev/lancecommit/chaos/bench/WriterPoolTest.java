package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

class WriterPoolTest {

  @Test
  void waitsForEveryWritersLastCommitAfterTheDeadline() throws Exception {
    AtomicInteger finished = new AtomicInteger();
    WriterPool.run(new RunResult("drains"), 3, 1, Duration.ofSeconds(30), (writer, deadline) -> {
      while (System.nanoTime() < deadline) {
        Thread.sleep(10);
      }
      Thread.sleep(200); // a last commit that outlives the deadline
      finished.incrementAndGet();
    });
    assertThat(finished).hasValue(3);
  }

  @Test
  @Timeout(60) // without the drain limit the pool would wait for the stuck writer forever
  void abandonsTheRunWhenAWriterNeverReturns() {
    CountDownLatch never = new CountDownLatch(1);
    Thread[] stuck = new Thread[1];
    try {
      assertThatThrownBy(() -> WriterPool.run(new RunResult("stuck"), 2, 1, Duration.ofMillis(300),
          (writer, deadline) -> {
            if (writer == 0) {
              stuck[0] = Thread.currentThread();
              never.await(); // a commit that never returns (interrupts aside, as a native call ignores them)
            }
          }))
          .isInstanceOf(IllegalStateException.class)
          .hasMessageContaining("1 of 2 writers of stuck had not returned");
      assertThat(stuck[0].isDaemon()).as("a writer left behind cannot keep the JVM alive").isTrue();
    } finally {
      never.countDown();
    }
  }
}
