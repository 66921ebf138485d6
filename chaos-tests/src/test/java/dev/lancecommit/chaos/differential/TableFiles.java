package dev.lancecommit.chaos.differential;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

/** Copies of local Lance table directories. */
public final class TableFiles {
  private TableFiles() {}

  /** Copies the whole tree {@code source} to {@code target} (which must not exist yet). */
  public static void copyTree(Path source, Path target) {
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : files.toList()) {
        Path to = target.resolve(source.relativize(file).toString());
        if (Files.isDirectory(file)) {
          Files.createDirectories(to);
        } else {
          Files.copy(file, to);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + source + " to " + target, e);
    }
  }

  /**
   * Copies into {@code target} the data, deletion and index files that {@code scratch} has and {@code base} had
   * not, leaving out versions and transaction files: after it {@code target} holds the files a transaction
   * committed on {@code scratch} refers to, without that commit.
   */
  public static void copyNewFiles(Path base, Path scratch, Path target) {
    try (Stream<Path> files = Files.walk(scratch)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Path relative = scratch.relativize(file);
        String top = relative.getName(0).toString();
        if (List.of("_versions", "_transactions").contains(top) || Files.exists(base.resolve(relative.toString()))) {
          continue;
        }
        Path to = target.resolve(relative.toString());
        if (!Files.exists(to)) {
          Files.createDirectories(to.getParent());
          Files.copy(file, to);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy new files of " + scratch + " to " + target, e);
    }
  }

  /**
   * Copies the table {@code source} to {@code target} as it was at {@code version}: every file except the manifests
   * of later versions and Lance's latest-version hint, so stock Lance opening the copy sees {@code version} as the
   * latest and commits on top of it.
   */
  public static void copyUpToVersion(Path source, Path target, long version) {
    try (Stream<Path> files = Files.walk(source)) {
      for (Path file : files.filter(Files::isRegularFile).toList()) {
        Path relative = source.relativize(file);
        if (relative.getName(0).toString().equals("_versions")) {
          String name = file.getFileName().toString();
          if (!name.endsWith(".manifest")
              || dev.lancecommit.testing.lance.StockLanceFiles.readManifest(file).getVersion() > version) {
            continue;
          }
        }
        Path to = target.resolve(relative.toString());
        Files.createDirectories(to.getParent());
        Files.copy(file, to);
      }
    } catch (IOException e) {
      throw new UncheckedIOException("cannot copy " + source + " up to version " + version, e);
    }
  }

  /**
   * Deletes {@code dir} and everything below it, if it exists. A coordinator moves a version hint after its answer, so
   * a file can appear (or a temporary one vanish) while the tree is deleted: the walk is made again, a few times.
   */
  public static void deleteTree(Path dir) {
    for (int attempt = 0; ; attempt++) {
      if (!Files.exists(dir)) {
        return;
      }
      try (Stream<Path> files = Files.walk(dir)) {
        for (Path file : files.sorted(java.util.Comparator.reverseOrder()).toList()) {
          Files.deleteIfExists(file);
        }
        return;
      } catch (IOException | UncheckedIOException e) {
        if (attempt >= 10) {
          throw new UncheckedIOException("cannot delete " + dir,
              e instanceof IOException io ? io : ((UncheckedIOException) e).getCause());
        }
      }
    }
  }

  public static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
