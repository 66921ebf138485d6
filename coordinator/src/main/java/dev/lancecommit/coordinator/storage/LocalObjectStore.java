package dev.lancecommit.coordinator.storage;

import com.sun.nio.file.ExtendedOpenOption;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.FileSystemException;
import java.nio.file.FileVisitResult;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.NoSuchFileException;
import java.nio.file.NotDirectoryException;
import java.nio.file.Path;
import java.nio.file.SimpleFileVisitor;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.BasicFileAttributes;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.Queue;
import java.util.UUID;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.atomic.AtomicLong;

/**
 * An {@link ObjectStore} on a local (or mounted) filesystem below {@code root}.
 *
 * <p>Writes go to a {@code .tmp-*} file in the target's directory first and are then published atomically:
 * {@link #put} renames over the target, {@link #putIfAbsent} hard-links the temp file to the target (link creation
 * fails if the target exists, so exactly one concurrent caller wins and nobody sees a partial file), as Lance's own
 * local store does. Only where the filesystem has no hard links does putIfAbsent fall back to an exclusive create
 * followed by the write, which is still exclusive but lets readers observe a partially written file.
 *
 * <p>Durability ({@code fsync}): by default a write is on stable storage before it returns (the file's data before it
 * is published, then its directory entry), so an acknowledged commit survives a power loss, not only a crash of the
 * process. That costs two flushes per written object; {@link #putIfAbsentUnflushed} and {@link #putUnflushed} skip
 * them for redundant copies. With {@code fsync} off nothing is flushed: the durability of Lance's own local commits
 * (which never flush), a process crash loses nothing, a power loss may lose the latest commits.
 *
 * <p>Direct I/O ({@code directIo}): a flushed write of at least {@link #DIRECT_IO_MIN_BYTES} (a manifest of a large
 * table) is written with {@code O_DIRECT}, from memory straight to the disk, instead of being copied into newly
 * allocated page-cache pages that the flush then writes out. The bytes and their durability are the same; what it
 * saves is the allocation and copy, which on some machines costs more than the write (on a VM whose host takes back
 * free guest memory, each new page faults in the host: 2.5 MB took 6.9 ms buffered and flushed, 1.8 ms direct).
 * Where the filesystem refuses {@code O_DIRECT} (tmpfs on older kernels) the store falls back to buffered writes.
 */
public final class LocalObjectStore implements ObjectStore {
  private static final System.Logger LOG = System.getLogger(LocalObjectStore.class.getName());

  /** Flushed writes of at least this many bytes go through direct I/O (when on). */
  public static final int DIRECT_IO_MIN_BYTES = 1 << 20;
  private static final int ALIGNED_BUFFERS_KEPT = 4;

  private final Path root;
  private final boolean fsync;
  private volatile boolean hardLinks;
  private final long directIoMinBytes;
  /** Alignment of direct I/O below root (the filesystem's block size); 0 until known, -1 once refused. */
  private volatile int directIoAlignment;
  private final AtomicLong directWrites = new AtomicLong();
  /** Buffers for direct I/O kept for the next writes (each as large as the largest file it wrote). */
  private final Queue<ByteBuffer> alignedBuffers = new ConcurrentLinkedQueue<>();

  /** A store that flushes every write to stable storage, large ones with direct I/O. */
  public LocalObjectStore(Path root) {
    this(root, true, true, DIRECT_IO_MIN_BYTES);
  }

  /** {@code fsync = false}: nothing is flushed (Lance's own local durability; see the class comment). */
  public static LocalObjectStore withFsync(Path root, boolean fsync) {
    return withFsync(root, fsync, true);
  }

  /** {@code directIo = false}: every write is buffered (see the class comment). */
  public static LocalObjectStore withFsync(Path root, boolean fsync, boolean directIo) {
    return new LocalObjectStore(root, true, fsync, directIo ? DIRECT_IO_MIN_BYTES : Long.MAX_VALUE);
  }

  /** {@code hardLinks = false} forces the exclusive-create fallback of putIfAbsent (for tests). */
  LocalObjectStore(Path root, boolean hardLinks) {
    this(root, hardLinks, true, DIRECT_IO_MIN_BYTES);
  }

  /** Flushed writes of at least {@code directIoMinBytes} use direct I/O (for tests: 0 sends every one through it). */
  LocalObjectStore(Path root, boolean hardLinks, boolean fsync, long directIoMinBytes) {
    if (root == null || !root.isAbsolute()) {
      throw new IllegalArgumentException("local store root must be an absolute path: " + root);
    }
    this.root = root.normalize();
    this.hardLinks = hardLinks;
    this.fsync = fsync;
    this.directIoMinBytes = directIoMinBytes;
  }

  /** Writes made with direct I/O so far. */
  long directWrites() {
    return directWrites.get();
  }

  /** Whether writes are flushed to stable storage before they return. */
  public boolean fsync() {
    return fsync;
  }

  public Path root() {
    return root;
  }

  /** The filesystem path of a key. */
  public Path pathOf(String key) {
    return resolve(ObjectKeys.checkKey(key));
  }

  @Override
  public Optional<byte[]> get(String key) {
    Path path = pathOf(key);
    try {
      return Optional.of(Files.readAllBytes(path));
    } catch (NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (notAnObject(path)) {
        return Optional.empty();
      }
      throw failure("get", key, e);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    Path path = pathOf(key);
    try {
      BasicFileAttributes attrs = Files.readAttributes(path, BasicFileAttributes.class);
      if (!attrs.isRegularFile()) {
        return Optional.empty();
      }
      return Optional.of(new ObjectInfo(key, attrs.size(), attrs.lastModifiedTime().toInstant()));
    } catch (NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (notAnObject(path)) {
        return Optional.empty();
      }
      throw failure("head", key, e);
    }
  }

  @Override
  public Optional<ObjectTail> getTail(String key, int maxBytes) {
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    Path path = pathOf(key);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      int length = (int) Math.min(size, maxBytes);
      return Optional.of(new ObjectTail(readFully(channel, size - length, length), size));
    } catch (NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (notAnObject(path)) {
        return Optional.empty();
      }
      throw failure("getTail", key, e);
    }
  }

  @Override
  public Optional<byte[]> getRange(String key, long offset, int length) {
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("bad range " + offset + "+" + length);
    }
    Path path = pathOf(key);
    try (FileChannel channel = FileChannel.open(path, StandardOpenOption.READ)) {
      long size = channel.size();
      long from = Math.min(offset, size);
      return Optional.of(readFully(channel, from, (int) Math.min(length, size - from)));
    } catch (NoSuchFileException | NotDirectoryException e) {
      return Optional.empty();
    } catch (IOException e) {
      if (notAnObject(path)) {
        return Optional.empty();
      }
      throw failure("getRange", key, e);
    }
  }

  private static byte[] readFully(FileChannel channel, long position, int length) throws IOException {
    ByteBuffer buffer = ByteBuffer.allocate(length);
    while (buffer.hasRemaining()) {
      if (channel.read(buffer, position + buffer.position()) < 0) {
        break; // the file shrank under us: return what is there
      }
    }
    return buffer.position() == length ? buffer.array() : java.util.Arrays.copyOf(buffer.array(), buffer.position());
  }

  @Override
  public void put(String key, byte[] data) {
    put(key, data, fsync);
  }

  @Override
  public void putUnflushed(String key, byte[] data) {
    put(key, data, false);
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    putIfAbsent(key, data, fsync);
  }

  @Override
  public void putIfAbsentUnflushed(String key, byte[] data) {
    putIfAbsent(key, data, false);
  }

  private void put(String key, byte[] data, boolean flush) {
    Path target = pathOf(key);
    Path temp = null;
    try {
      temp = writeTemp(target, data, flush);
      Files.move(temp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
      temp = null;
      if (flush) {
        syncDirectory(target.getParent());
      }
    } catch (IOException e) {
      throw failure("put", key, e);
    } finally {
      deleteQuietly(temp);
    }
  }

  private void putIfAbsent(String key, byte[] data, boolean flush) {
    Path target = pathOf(key);
    if (!hardLinks) {
      createExclusive(key, target, data, flush);
      return;
    }
    Path temp;
    try {
      temp = writeTemp(target, data, flush);
    } catch (IOException e) {
      throw failure("putIfAbsent", key, e);
    }
    link(key, target, temp, data, flush);
  }

  /**
   * Writes (and flushes) the bytes under a temporary name in the key's directory now; {@link StagedPut#create()} links
   * them under the key and flushes the directory, which is all that is left on the manifest write's critical path.
   */
  @Override
  public StagedPut stagePutIfAbsent(String key, byte[] data) {
    Path target = pathOf(key);
    if (!hardLinks) {
      return StagedPut.deferred(this, key, data);
    }
    Path temp;
    try {
      temp = writeTemp(target, data, fsync);
    } catch (IOException e) {
      throw failure("putIfAbsent", key, e);
    }
    return new StagedPut() {
      /**
       * Set once the temporary file is removed: the lane discards every staged put after its write, and each removal
       * of a file already gone costs a failed lstat and an exception with its stack trace (two per version measured).
       */
      private volatile boolean removed;

      @Override
      public void create() {
        try {
          link(key, target, temp, data, fsync);
        } finally {
          removed = true; // link removes the temporary file either way
        }
      }

      @Override
      public void discard() {
        if (!removed) {
          deleteQuietly(temp);
          removed = true;
        }
      }
    };
  }

  @Override
  public int removeAbandonedStagedPuts(String prefix, java.time.Instant before) {
    String dirKey = ObjectKeys.normalizePrefix(prefix);
    Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
    int removed = 0;
    try (DirectoryStream<Path> entries = Files.newDirectoryStream(dir,
        entry -> isReserved(entry) && Files.isRegularFile(entry, LinkOption.NOFOLLOW_LINKS))) {
      for (Path entry : entries) {
        try {
          if (Files.getLastModifiedTime(entry).toInstant().isBefore(before) && Files.deleteIfExists(entry)) {
            removed++;
          }
        } catch (IOException e) {
          LOG.log(System.Logger.Level.DEBUG, "Could not remove abandoned " + entry, e);
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return 0;
    } catch (IOException e) {
      LOG.log(System.Logger.Level.DEBUG, "Could not look for abandoned staged files in " + dir, e);
    }
    return removed;
  }

  /** Creates {@code target} as a hard link to the written {@code temp}, which is removed either way. */
  private void link(String key, Path target, Path temp, byte[] data, boolean flush) {
    boolean linked = false;
    try {
      Files.createLink(target, temp);
      linked = true;
    } catch (FileAlreadyExistsException e) {
      throw new ObjectAlreadyExistsException(key);
    } catch (NoSuchFileException e) {
      // the staged file is gone (removed by hand, or its directory with it): nothing was created
      throw new StoreUnavailableException("putIfAbsent of " + key + ": the staged file " + temp + " is gone", e);
    } catch (UnsupportedOperationException e) {
      disableHardLinks(e);
    } catch (FileSystemException e) {
      if (!linksUnsupported(e)) {
        throw failure("putIfAbsent", key, e);
      }
      disableHardLinks(e);
    } catch (IOException e) {
      throw failure("putIfAbsent", key, e);
    } finally {
      deleteQuietly(temp);
    }
    if (linked) {
      if (flush) {
        syncDirectory(target.getParent());
      }
    } else {
      createExclusive(key, target, data, flush);
    }
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    String dirKey = ObjectKeys.normalizePrefix(prefix);
    Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    List<ObjectInfo> found = new ArrayList<>();
    try {
      Files.walkFileTree(dir, new SimpleFileVisitor<>() {
        @Override
        public FileVisitResult preVisitDirectory(Path d, BasicFileAttributes attrs) {
          return isReserved(d) && !d.equals(dir) ? FileVisitResult.SKIP_SUBTREE : FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFile(Path file, BasicFileAttributes attrs) {
          if (attrs.isRegularFile() && !isReserved(file)) {
            found.add(new ObjectInfo(keyOf(file), attrs.size(), attrs.lastModifiedTime().toInstant()));
          }
          return FileVisitResult.CONTINUE;
        }

        @Override
        public FileVisitResult visitFileFailed(Path file, IOException e) throws IOException {
          if (e instanceof NoSuchFileException) {
            return FileVisitResult.CONTINUE; // deleted while we walked
          }
          throw e;
        }
      });
    } catch (IOException e) {
      throw failure("list", dirKey, e);
    }
    found.sort(Comparator.comparing(ObjectInfo::key));
    return List.copyOf(found);
  }

  @Override
  public List<String> listDirectory(String prefix) {
    String dirKey = ObjectKeys.normalizePrefix(prefix);
    Path dir = dirKey.isEmpty() ? root : resolve(dirKey);
    List<String> names = new ArrayList<>();
    try (DirectoryStream<Path> children = Files.newDirectoryStream(dir)) {
      for (Path child : children) {
        if (!isReserved(child)) {
          names.add(child.getFileName().toString());
        }
      }
    } catch (NoSuchFileException | NotDirectoryException e) {
      return List.of();
    } catch (IOException e) {
      throw failure("listDirectory", dirKey, e);
    }
    names.sort(Comparator.naturalOrder());
    return List.copyOf(names);
  }

  @Override
  public void delete(String key) {
    Path path = pathOf(key);
    if (Files.isDirectory(path, LinkOption.NOFOLLOW_LINKS)) {
      return; // a "directory" is not an object
    }
    try {
      Files.deleteIfExists(path);
    } catch (IOException e) {
      if (notAnObject(path)) {
        return;
      }
      throw failure("delete", key, e);
    }
  }

  @Override
  public boolean listsUnordered() {
    return true;
  }

  @Override
  public boolean requestsAreRoundTrips() {
    return false;
  }

  @Override
  public String uri() {
    return root.toString();
  }

  @Override
  public String uriOf(String key) {
    return key.isEmpty() ? uri() : pathOf(key).toString();
  }

  @Override
  public void close() {}

  @Override
  public String toString() {
    return "LocalObjectStore[" + root + "]";
  }

  /** A directory, or nothing at all (ENOTDIR when a parent segment is a file is no NoSuchFileException). */
  private static boolean notAnObject(Path path) {
    return Files.isDirectory(path) || !Files.exists(path);
  }

  private Path resolve(String validKey) {
    Path path = root.resolve(validKey).normalize();
    if (!path.startsWith(root)) {
      throw new IllegalArgumentException("key escapes the store root: '" + validKey + "'");
    }
    return path;
  }

  private String keyOf(Path file) {
    Path relative = root.relativize(file);
    StringBuilder key = new StringBuilder();
    for (Path segment : relative) {
      if (key.length() > 0) {
        key.append('/');
      }
      key.append(segment);
    }
    return key.toString();
  }

  private static boolean isReserved(Path path) {
    Path name = path.getFileName();
    return name != null && name.toString().startsWith(ObjectKeys.RESERVED_SEGMENT_PREFIX);
  }

  /**
   * Creates {@code dir} and its parents unless it is a directory already. Checked first because
   * {@link Files#createDirectories} on a directory that exists, as a table's are on every write after its first,
   * fails a mkdir and throws and catches two exceptions before it finds the directory there.
   */
  private static void ensureDirectory(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      Files.createDirectories(dir);
    }
  }

  private Path writeTemp(Path target, byte[] data, boolean flush) throws IOException {
    Path parent = target.getParent();
    ensureDirectory(parent);
    Path temp = parent.resolve(ObjectKeys.RESERVED_SEGMENT_PREFIX + UUID.randomUUID());
    if (flush && data.length >= directIoMinBytes && writtenDirect(temp, data)) {
      return temp;
    }
    try (FileChannel channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE)) {
      writeFully(channel, data);
      if (flush) {
        channel.force(true);
      }
    } catch (IOException e) {
      deleteQuietly(temp);
      throw e;
    }
    return temp;
  }

  /**
   * Writes and flushes {@code data} as the new file {@code temp} with direct I/O: the whole blocks, then the last
   * partial block padded with zeros, then the file cut to its length. False, with nothing left behind, where the
   * filesystem refuses direct I/O (then never tried again below root); a failure of a write once direct writes have
   * worked here is thrown.
   */
  private boolean writtenDirect(Path temp, byte[] data) throws IOException {
    int alignment = directIoAlignment;
    if (alignment < 0 || data.length > Integer.MAX_VALUE - (1 << 21)) {
      return false;
    }
    FileChannel channel;
    try {
      if (alignment == 0) {
        long blockSize = Files.getFileStore(temp.getParent()).getBlockSize();
        if (blockSize <= 0 || blockSize > (1 << 16) || Long.bitCount(blockSize) != 1) {
          refuseDirectIo("its block size is " + blockSize, null);
          return false;
        }
        alignment = (int) blockSize;
      }
      channel = FileChannel.open(temp, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE,
          ExtendedOpenOption.DIRECT);
    } catch (FileAlreadyExistsException e) {
      throw e;
    } catch (IOException | UnsupportedOperationException e) {
      deleteQuietly(temp); // some filesystems create the file before they refuse the flag
      refuseDirectIo("opening a file with O_DIRECT failed", e);
      return false;
    }
    directIoAlignment = alignment;
    int padded = (int) ((data.length + (long) alignment - 1) / alignment * alignment);
    ByteBuffer buffer = alignedBuffer(padded, alignment);
    try (channel) {
      buffer.clear().put(data);
      while (buffer.position() < padded) {
        buffer.put((byte) 0);
      }
      writeFully(channel, buffer.flip());
      if (padded > data.length) {
        channel.truncate(data.length);
      }
      channel.force(true);
    } catch (IOException e) {
      deleteQuietly(temp);
      if (directWrites.get() == 0) { // the filesystem opened the file but refuses the write (alignment)
        refuseDirectIo("the first write with O_DIRECT failed", e);
        return false;
      }
      throw e;
    } finally {
      if (alignedBuffers.size() < ALIGNED_BUFFERS_KEPT) {
        alignedBuffers.offer(buffer);
      }
    }
    directWrites.incrementAndGet();
    return true;
  }

  /**
   * A direct buffer of at least {@code capacity} bytes at an address aligned for direct I/O, reused: the JDK's own
   * temporary buffers for direct I/O from a heap array fail when it frees them (a NullPointerException in JDK 17),
   * and a new buffer's memory is as costly to touch as the page-cache pages direct I/O avoids.
   */
  private ByteBuffer alignedBuffer(int capacity, int alignment) {
    for (ByteBuffer pooled; (pooled = alignedBuffers.poll()) != null; ) {
      if (pooled.capacity() >= capacity) {
        return pooled; // every pooled buffer was sliced to this store's one alignment
      }
    }
    int wholeMebibytes = (capacity + (1 << 20) - 1) >>> 20 << 20; // writtenDirect bounds capacity well below 2 GiB
    return ByteBuffer.allocateDirect(wholeMebibytes + alignment).alignedSlice(alignment);
  }

  private void refuseDirectIo(String why, Exception cause) {
    if (directIoAlignment >= 0) {
      directIoAlignment = -1;
      LOG.log(System.Logger.Level.INFO, "direct I/O unavailable below " + root + " (" + why
          + "); large flushed writes are buffered", cause);
    }
  }

  private void createExclusive(String key, Path target, byte[] data, boolean flush) {
    FileChannel channel;
    try {
      ensureDirectory(target.getParent());
    } catch (IOException e) {
      throw failure("putIfAbsent", key, e);
    }
    try {
      channel = FileChannel.open(target, StandardOpenOption.CREATE_NEW, StandardOpenOption.WRITE);
    } catch (FileAlreadyExistsException e) {
      throw new ObjectAlreadyExistsException(key);
    } catch (IOException e) {
      throw failure("putIfAbsent", key, e);
    }
    try (channel) {
      writeFully(channel, data);
      if (flush) {
        channel.force(true);
      }
    } catch (IOException e) {
      // The key now exists with partial content; removing it restores "not applied" if that works.
      try {
        Files.deleteIfExists(target);
      } catch (IOException deleteFailure) {
        e.addSuppressed(deleteFailure);
        throw new StoreOutcomeUnknownException(
            "putIfAbsent of " + target + " failed after creating the file, which could not be removed", e);
      }
      throw failure("putIfAbsent", key, e);
    }
    if (flush) {
      syncDirectory(target.getParent());
    }
  }

  private static void writeFully(FileChannel channel, byte[] data) throws IOException {
    writeFully(channel, ByteBuffer.wrap(data));
  }

  private static void writeFully(FileChannel channel, ByteBuffer buffer) throws IOException {
    while (buffer.hasRemaining()) {
      channel.write(buffer);
    }
  }

  /** Makes the new directory entry durable; best effort, as not every filesystem allows fsync on a directory. */
  private static void syncDirectory(Path dir) {
    try (FileChannel channel = FileChannel.open(dir, StandardOpenOption.READ)) {
      channel.force(true);
    } catch (IOException | UnsupportedOperationException e) {
      LOG.log(System.Logger.Level.DEBUG, "fsync of directory " + dir + " not possible", e);
    }
  }

  private static boolean linksUnsupported(FileSystemException e) {
    String reason = String.valueOf(e.getReason()).toLowerCase();
    return reason.contains("not supported") || reason.contains("not permitted");
  }

  private void disableHardLinks(Exception cause) {
    if (hardLinks) {
      hardLinks = false;
      LOG.log(System.Logger.Level.WARNING, "hard links unsupported below " + root
          + "; putIfAbsent falls back to exclusive create (readers may see partial objects)", cause);
    }
  }

  private static void deleteQuietly(Path path) {
    if (path != null) {
      try {
        Files.deleteIfExists(path);
      } catch (IOException e) {
        LOG.log(System.Logger.Level.WARNING, "could not delete temporary file " + path, e);
      }
    }
  }

  /** A local I/O failure leaves the target untouched: temp files are published only by an atomic rename or link. */
  private StoreException failure(String operation, String key, IOException e) {
    String message = operation + " of '" + key + "' in " + root + " failed: " + e;
    if (e instanceof FileAlreadyExistsException || e instanceof NotDirectoryException
        || (e instanceof FileSystemException fse && "Not a directory".equals(fse.getReason()))) {
      // a file sits where the key needs a directory (or the reverse): a definite, permanent rejection
      return new StoreException(message, e);
    }
    return new StoreUnavailableException(message, e);
  }
}
