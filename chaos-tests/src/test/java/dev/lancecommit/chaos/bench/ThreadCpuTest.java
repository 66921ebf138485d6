package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class ThreadCpuTest {

  @Test
  void aStatLineGivesItsThreadsNameAndUserPlusSystemTime() {
    // a name with a space and parentheses, as "C2 CompilerThre" and any Java thread name may have
    ThreadCpu.Task task = ThreadCpu.parse(
        "4711 (odd (name) x) S 1 4700 4700 0 -1 4194368 1234 0 0 0 250 37 0 0 20 0 1 0 99 0 0");

    assertThat(task.name()).isEqualTo("odd (name) x");
    assertThat(task.ticks()).isEqualTo(287);
  }

  @Test
  void threadsAreCountedByKindAndOnlyWhatTheySpentSinceTheFirstReading(@TempDir Path tasks) throws Exception {
    stat(tasks, 10, "lcc-lane-3", 100, 20);
    stat(tasks, 11, "C2 CompilerThre", 500, 0);
    stat(tasks, 12, "bench-writer-7", 5, 5);
    ThreadCpu before = ThreadCpu.now(tasks).orElseThrow();
    stat(tasks, 10, "lcc-lane-3", 130, 25);        // +35
    stat(tasks, 11, "C2 CompilerThre", 560, 1);    // +61
    Files.delete(tasks.resolve("12").resolve("stat"));
    Files.delete(tasks.resolve("12"));             // ended
    stat(tasks, 13, "HttpClient-1-Wo", 7, 3);      // started since: counted whole
    stat(tasks, 14, "something-else", 2, 0);

    Map<String, Long> spent = ThreadCpu.now(tasks).orElseThrow().since(before);

    assertThat(spent).containsEntry("commit lanes", 35L).containsEntry("JIT compiler", 61L)
        .containsEntry("writers' HTTP client", 10L).containsEntry("other", 2L).containsEntry("writers", 0L);
    assertThat(ThreadCpu.describe(spent, 1.0, 2))
        .isEqualTo("CPU in the window: 1.08 of 2 cores busy (JIT compiler 31%, commit lanes 18%, "
            + "writers' HTTP client 5%, other 1%)");
  }

  @Test
  void aBusyWriterThreadOfThisProcessShowsUpAsWriters() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    ThreadCpu before = ThreadCpu.now().orElseThrow();
    CountDownLatch spun = new CountDownLatch(1);
    CountDownLatch read = new CountDownLatch(1);
    Thread busy = new Thread(() -> {
      long until = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(400);
      long sink = 0;
      while (System.nanoTime() < until) {
        sink += sink * 31 + 7;
      }
      if (sink == 42) {
        System.out.println(sink);
      }
      spun.countDown();
      try {
        read.await(); // an ended thread leaves /proc, and its time with it
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }, WriterPool.THREAD_PREFIX + "1");
    busy.start();
    spun.await();
    Map<String, Long> spent;
    try {
      spent = ThreadCpu.now().orElseThrow().since(before);
    } finally {
      read.countDown();
      busy.join();
    }

    // 400 ms of spinning is 40 ticks; allow for a machine that took the core away part of the time
    assertThat(spent.get("writers")).isGreaterThanOrEqualTo(10L);
  }

  @Test
  void aWatchedProcessCountsItsOwnThreadsApartFromThisProcesssJitGcAndOthers() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    ThreadCpu before = ThreadCpu.now().orElseThrow();
    Process spinning = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
    Map<String, Long> spent;
    try {
      ThreadCpu.watch(spinning.pid());
      Thread.sleep(600);
      spent = ThreadCpu.now().orElseThrow().since(before);
      ThreadCpu.unwatch(spinning.pid());
      Thread.sleep(300);
      // unwatched: its time no longer counts
      assertThat(ThreadCpu.now().orElseThrow().since(before)).doesNotContainKey("coordinator JVM's other");
    } finally {
      ThreadCpu.unwatch(spinning.pid());
      spinning.destroyForcibly().waitFor();
    }

    // a shell's thread is of no known kind: "other", told apart as the watched process's
    assertThat(spent.get("coordinator JVM's other")).isGreaterThanOrEqualTo(10L);
    assertThat(ThreadCpu.kindOf(new ThreadCpu.Task("C2 CompilerThre", 5, true)))
        .isEqualTo("coordinator JVM's JIT compiler");
    assertThat(ThreadCpu.kindOf(new ThreadCpu.Task("lcc-lane-3", 5, true))).isEqualTo("commit lanes");
    assertThat(ThreadCpu.kindOf(new ThreadCpu.Task("C2 CompilerThre", 5, false))).isEqualTo("JIT compiler");
  }

  @Test
  void aProcessWatchedAsAWholeCountsUnderItsOwnKindWhateverItsThreadsAreNamed() throws Exception {
    assumeTrue(Files.isDirectory(Path.of("/proc/self/task")), "Linux only");
    ThreadCpu before = ThreadCpu.now().orElseThrow();
    Process spinning = new ProcessBuilder("sh", "-c", "while :; do :; done").start();
    Map<String, Long> spent;
    try {
      ThreadCpu.watchAs(spinning.pid(), "pylance");
      Thread.sleep(600);
      spent = ThreadCpu.now().orElseThrow().since(before);
    } finally {
      ThreadCpu.unwatch(spinning.pid());
      spinning.destroyForcibly().waitFor();
    }

    assertThat(spent.get("pylance")).isGreaterThanOrEqualTo(10L);
    assertThat(spent).doesNotContainKey("coordinator JVM's other");
    assertThat(ThreadCpu.kindOf(new ThreadCpu.Task("lcc-lane-3", 5, true, "pylance"))).isEqualTo("pylance");
  }

  @Test
  void perCommitDividesEachKindsTimeInTheWindowByTheCommitsFinishedInIt() {
    Map<String, Long> spent = new java.util.LinkedHashMap<>();
    spent.put("commit lanes", 35L);
    spent.put("pylance", 61L);
    spent.put("other", 0L);

    // a tick is 10 ms: 960 ms over 40 commits is 24 ms each
    assertThat(ThreadCpu.perCommit(spent, 40))
        .isEqualTo("CPU per commit in the window: 24.00 ms over 40 commits (pylance 15.25, commit lanes 8.75)");
    assertThat(ThreadCpu.perCommit(spent, 0)).isEqualTo("CPU per commit in the window: no commit finished in it");
  }

  private static void stat(Path tasks, int tid, String name, long user, long system) throws Exception {
    Path dir = Files.createDirectories(tasks.resolve(Integer.toString(tid)));
    Files.writeString(dir.resolve("stat"), tid + " (" + name + ") S 1 1 1 0 -1 0 0 0 0 0 " + user + " " + system
        + " 0 0 20 0 1 0 0 0 0\n");
  }
}
