package dev.lancecommit.chaos.bench;

import dev.lancecommit.testing.lance.LanceTables;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import org.lance.FragmentMetadata;

/**
 * The data files one table's writers commit, each {@code rows} rows with ids from a shared counter. With files
 * written ahead, a pool is filled before the window opens and writers take from it, as writers on other machines
 * would arrive with their files written; a writer finding the pool empty writes its file itself, counted in
 * {@link #writtenInWindow()}. Without, every writer writes its file before each commit, inside the window, on the
 * same cores as the commit path.
 */
final class DataFiles {
  private final LanceTables lance;
  private final int rows;
  private final AtomicLong nextId;
  private final ConcurrentLinkedQueue<List<FragmentMetadata>> ahead = new ConcurrentLinkedQueue<>();
  private final AtomicInteger writtenInWindow = new AtomicInteger();

  private DataFiles(LanceTables lance, int rows, AtomicLong nextId) {
    this.lance = lance;
    this.rows = rows;
    this.nextId = nextId;
  }

  /** Each writer writes its file before each commit. */
  static DataFiles perCommit(LanceTables lance, int rows, AtomicLong nextId) {
    return new DataFiles(lance, rows, nextId);
  }

  /** {@code count} files written now, by {@code threads} threads, before the window opens. */
  static DataFiles ahead(LanceTables lance, int rows, AtomicLong nextId, int count, int threads) throws Exception {
    DataFiles files = new DataFiles(lance, rows, nextId);
    if (count == 0) {
      return files;
    }
    int writerThreads = Math.max(1, Math.min(threads, count));
    ExecutorService pool = Executors.newFixedThreadPool(writerThreads);
    try {
      AtomicInteger left = new AtomicInteger(count);
      List<Future<?>> writers = new ArrayList<>();
      for (int t = 0; t < writerThreads; t++) {
        writers.add(pool.submit(() -> {
          while (left.getAndDecrement() > 0) {
            files.ahead.add(files.write());
          }
          return null;
        }));
      }
      for (Future<?> writer : writers) {
        writer.get();
      }
    } finally {
      pool.shutdownNow();
    }
    return files;
  }

  /** The next file to commit: one written ahead, else one written now. */
  List<FragmentMetadata> next() {
    List<FragmentMetadata> written = ahead.poll();
    if (written != null) {
      return written;
    }
    writtenInWindow.incrementAndGet();
    return write();
  }

  /** Files written by the writers themselves (per commit, or after the pool ran out). */
  int writtenInWindow() {
    return writtenInWindow.get();
  }

  private List<FragmentMetadata> write() {
    return lance.writeRows(nextId.getAndAdd(rows), rows);
  }
}
