package dev.lancecommit.events.consumer;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.FileLock;
import java.nio.channels.OverlappingFileLockException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.time.Clock;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checkpoints in a JSON-lines file, one line per advance: {@code {"table_uuid":"…","version":12,"at":"…"}}. Each
 * advance is appended and forced to disk before it returns. When the file holds many more lines than tables it is
 * rewritten (one line per table, written to a temporary file and renamed over the old one).
 *
 * <p>A last line cut short by a crash is dropped with a warning on open (that advance had not returned, so its
 * version is simply delivered again); any other unreadable line fails the open. A sibling {@code .lock} file is
 * locked while the store is open, so two consumers cannot share one file.
 */
public final class FileCheckpointStore implements TableCheckpointStore {
  private static final Logger LOG = LoggerFactory.getLogger(FileCheckpointStore.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final int MIN_LINES_BEFORE_REWRITE = 1024;

  private final Path file;
  private final Clock clock;
  private final Map<String, Long> versions = new HashMap<>();
  private final FileChannel lockChannel;
  private final FileLock lock;
  private FileChannel out;
  private int lines;
  private boolean closed;

  private FileCheckpointStore(Path file, Clock clock) throws IOException {
    this.file = file.toAbsolutePath();
    this.clock = clock;
    Path parent = this.file.getParent();
    if (parent != null) {
      Files.createDirectories(parent);
    }
    Path lockFile = this.file.resolveSibling(this.file.getFileName() + ".lock");
    this.lockChannel = FileChannel.open(lockFile, StandardOpenOption.CREATE, StandardOpenOption.WRITE);
    FileLock acquired;
    try {
      acquired = lockChannel.tryLock();
    } catch (OverlappingFileLockException e) {
      acquired = null;
    }
    if (acquired == null) {
      lockChannel.close();
      throw new IllegalStateException("checkpoint file " + this.file + " is in use by another consumer");
    }
    this.lock = acquired;
    try {
      load();
      this.out = openForAppend();
    } catch (IOException | RuntimeException e) {
      releaseLock();
      throw e;
    }
  }

  /** Opens (creating if needed) the store at {@code file}. */
  public static FileCheckpointStore open(Path file) {
    return open(file, Clock.systemUTC());
  }

  static FileCheckpointStore open(Path file, Clock clock) {
    try {
      return new FileCheckpointStore(file, clock);
    } catch (IOException e) {
      throw new UncheckedIOException("could not open checkpoint file " + file + ": " + e.getMessage(), e);
    }
  }

  public Path file() {
    return file;
  }

  @Override
  public synchronized OptionalLong checkpoint(String tableUuid) {
    Long version = versions.get(tableUuid);
    return version == null ? OptionalLong.empty() : OptionalLong.of(version);
  }

  @Override
  public synchronized void advance(String tableUuid, long version) {
    ensureOpen();
    TableCheckpointStore.checkAdvance(tableUuid, version, checkpoint(tableUuid));
    try {
      write(out, line(tableUuid, version));
      out.force(false);
    } catch (IOException e) {
      throw new UncheckedIOException(
          "could not record checkpoint " + tableUuid + " = " + version + " in " + file + ": " + e.getMessage(), e);
    }
    versions.put(tableUuid, version);
    lines++;
    if (lines > Math.max(MIN_LINES_BEFORE_REWRITE, 4 * versions.size())) {
      rewrite();
    }
  }

  @Override
  public synchronized Map<String, Long> checkpoints() {
    return Map.copyOf(new TreeMap<>(versions));
  }

  @Override
  public synchronized void close() {
    if (closed) {
      return;
    }
    closed = true;
    try {
      out.close();
    } catch (IOException e) {
      LOG.warn("closing checkpoint file {}: {}", file, e.toString());
    }
    releaseLock();
  }

  private void load() throws IOException {
    if (!Files.exists(file)) {
      return;
    }
    byte[] bytes = Files.readAllBytes(file);
    String text = new String(bytes, StandardCharsets.UTF_8);
    List<String> all = text.lines().toList();
    boolean endsWithNewline = text.isEmpty() || text.endsWith("\n");
    long validBytes = 0;
    boolean torn = false;
    for (int i = 0; i < all.size(); i++) {
      String raw = all.get(i);
      boolean last = i == all.size() - 1;
      if (!raw.isBlank()) {
        try {
          JsonNode node = JSON.readTree(raw);
          String uuid = node.path("table_uuid").asText("");
          JsonNode version = node.get("version");
          if (uuid.isBlank() || version == null || !version.canConvertToLong() || version.asLong() < 1) {
            throw new IOException("not a checkpoint line");
          }
          versions.merge(uuid, version.asLong(), Math::max);
          lines++;
        } catch (IOException e) {
          if (last && !endsWithNewline) {
            LOG.warn("dropping the torn last line of checkpoint file {}: {}", file, raw);
            torn = true;
            break;
          }
          throw new IllegalStateException(
              "checkpoint file " + file + " line " + (i + 1) + " is not a checkpoint: " + raw, e);
        }
      }
      validBytes += raw.getBytes(StandardCharsets.UTF_8).length + 1;
    }
    if (torn) {
      try (FileChannel channel = FileChannel.open(file, StandardOpenOption.WRITE)) {
        channel.truncate(validBytes);
      }
    } else if (!endsWithNewline) {
      // a complete last line whose newline did not make it: end it so the next append starts a line
      try (FileChannel channel = openForAppend()) {
        write(channel, new byte[] {'\n'});
      }
    }
  }

  private void rewrite() {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    try {
      try (FileChannel channel = FileChannel.open(tmp, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
          StandardOpenOption.TRUNCATE_EXISTING)) {
        for (Map.Entry<String, Long> entry : new TreeMap<>(versions).entrySet()) {
          write(channel, line(entry.getKey(), entry.getValue()));
        }
        channel.force(true);
      }
      out.close();
      Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
      out = openForAppend();
      lines = versions.size();
    } catch (IOException e) {
      // The old file is still complete (the rename is atomic); keep appending to it.
      LOG.warn("could not rewrite checkpoint file {}: {}", file, e.toString());
      try {
        if (!out.isOpen()) {
          out = openForAppend();
        }
      } catch (IOException reopen) {
        throw new UncheckedIOException("checkpoint file " + file + " cannot be reopened", reopen);
      }
    }
  }

  private FileChannel openForAppend() throws IOException {
    return FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE, StandardOpenOption.APPEND);
  }

  private byte[] line(String tableUuid, long version) {
    ObjectNode node = JSON.createObjectNode()
        .put("table_uuid", tableUuid)
        .put("version", version)
        .put("at", clock.instant().toString());
    return (node.toString() + "\n").getBytes(StandardCharsets.UTF_8);
  }

  private static void write(FileChannel channel, byte[] bytes) throws IOException {
    ByteBuffer buffer = ByteBuffer.wrap(bytes);
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  private void ensureOpen() {
    if (closed) {
      throw new IllegalStateException("checkpoint store " + file + " is closed");
    }
  }

  private void releaseLock() {
    try {
      lock.release();
      lockChannel.close();
    } catch (IOException e) {
      LOG.warn("releasing the lock of checkpoint file {}: {}", file, e.toString());
    }
  }
}
