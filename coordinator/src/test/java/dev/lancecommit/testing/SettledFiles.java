package dev.lancecommit.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.function.Supplier;
import java.util.stream.Stream;

/**
 * Every file under a directory with its content, read once the directory has settled: a commit is answered before
 * its version hint moves and its event is handed over (the lane does that after the answer), so a snapshot taken
 * right after an answer can race those writes. Two reads {@link #QUIET} apart that agree are the settled state; a
 * refused request that wrote anything, at once or later, still shows in a snapshot taken after it.
 */
public final class SettledFiles {
  static final Duration QUIET = Duration.ofMillis(150);
  private static final Duration LIMIT = Duration.ofSeconds(10);

  private SettledFiles() {}

  /** @param key how a file is named in the map (e.g. relative to {@code root}) */
  public static Map<String, String> snapshot(Path root, Function<Path, String> key) {
    return settled(() -> read(root, key), "Files under " + root);
  }

  /**
   * What {@code read} returns once two reads {@link #QUIET} apart agree (e.g. a listing of an object store).
   *
   * @param what named in the failure when it never settles
   */
  public static <T> T settled(Supplier<T> read, String what) {
    long deadline = System.nanoTime() + LIMIT.toNanos();
    T previous = readOnce(read);
    while (System.nanoTime() < deadline) {
      try {
        Thread.sleep(QUIET.toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new IllegalStateException(e);
      }
      T current = readOnce(read);
      if (current.equals(previous)) {
        return current;
      }
      previous = current;
    }
    throw new AssertionError(what + " kept changing for " + LIMIT);
  }

  /** {@code read}, again when it fails on a file renamed or deleted while it was being read. */
  private static <T> T readOnce(Supplier<T> read) {
    for (int attempt = 0; ; attempt++) {
      try {
        return read.get();
      } catch (UncheckedIOException e) {
        if (attempt >= 20) {
          throw e;
        }
      }
    }
  }

  private static Map<String, String> read(Path root, Function<Path, String> key) {
    for (int attempt = 0; ; attempt++) {
      Map<String, String> files = new TreeMap<>();
      try (Stream<Path> walk = Files.walk(root)) {
        for (Path p : (Iterable<Path>) walk.filter(Files::isRegularFile)::iterator) {
          files.put(key.apply(p), new String(Files.readAllBytes(p)));
        }
        return files;
      } catch (IOException | UncheckedIOException e) {
        if (attempt >= 20) { // a temporary file renamed away mid-walk: read again
          throw e instanceof IOException io ? new UncheckedIOException(io) : (UncheckedIOException) e;
        }
      }
    }
  }
}
