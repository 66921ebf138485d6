package dev.lancecommit.coordinator.storage;

import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.UnaryOperator;
import java.util.regex.Pattern;

/**
 * Turns location URIs into stores: {@code s3://bucket/prefix} gives the (cached, one per bucket) {@link S3ObjectStore}
 * of that bucket, an absolute path or {@code file:///path} gives a {@link LocalObjectStore} rooted at the path's
 * filesystem root. Owns every store it creates; {@link #close()} closes them.
 */
public final class ObjectStores implements AutoCloseable {
  private static final Pattern BUCKET = Pattern.compile("[a-z0-9][a-z0-9.\\-_]{0,254}", Pattern.CASE_INSENSITIVE);

  private final S3Config s3Config;
  private final UnaryOperator<ObjectStore> decorator;
  private final boolean localFsync;
  private final boolean localDirectIo;
  private final Map<String, ObjectStore> s3Stores = new ConcurrentHashMap<>();
  private final Map<Path, ObjectStore> localStores = new ConcurrentHashMap<>();
  private volatile boolean closed;

  /** @param s3Config settings for every S3 bucket; null when S3 locations are not allowed */
  public ObjectStores(S3Config s3Config) {
    this(s3Config, UnaryOperator.identity());
  }

  /**
   * @param decorator wraps every store this creates (metrics and traces of every storage call); the wrapper owns the
   *     store it wraps and closes it
   */
  public ObjectStores(S3Config s3Config, UnaryOperator<ObjectStore> decorator) {
    this(s3Config, true, decorator);
  }

  /**
   * @param localFsync whether local stores flush writes to stable storage ({@link LocalObjectStore})
   * @param decorator wraps every store this creates (metrics and traces of every storage call); the wrapper owns the
   *     store it wraps and closes it
   */
  public ObjectStores(S3Config s3Config, boolean localFsync, UnaryOperator<ObjectStore> decorator) {
    this(s3Config, localFsync, true, decorator);
  }

  /**
   * @param localFsync whether local stores flush writes to stable storage ({@link LocalObjectStore})
   * @param localDirectIo whether local stores write large flushed files with direct I/O ({@link LocalObjectStore})
   * @param decorator wraps every store this creates (metrics and traces of every storage call); the wrapper owns the
   *     store it wraps and closes it
   */
  public ObjectStores(S3Config s3Config, boolean localFsync, boolean localDirectIo,
      UnaryOperator<ObjectStore> decorator) {
    this.s3Config = s3Config;
    this.decorator = decorator;
    this.localFsync = localFsync;
    this.localDirectIo = localDirectIo;
  }

  /** A factory for local locations only. */
  public static ObjectStores localOnly() {
    return new ObjectStores(null);
  }

  /**
   * Resolves {@code location} to a store and the key of the location inside it.
   *
   * @throws IllegalArgumentException for relative paths, unsupported schemes, a missing bucket, or S3 without an
   *     S3 configuration
   */
  public StorageLocation resolve(String location) {
    if (location == null || location.isBlank()) {
      throw new IllegalArgumentException("storage location must not be empty");
    }
    if (closed) {
      throw new IllegalStateException("ObjectStores is closed");
    }
    if (location.startsWith("s3://")) {
      return resolveS3(location);
    }
    if (location.startsWith("file:")) {
      return resolveLocal(location, fileUriPath(location));
    }
    if (location.startsWith("/")) {
      return resolveLocal(location, localPath(location));
    }
    int colon = location.indexOf(':');
    int slash = location.indexOf('/');
    if (colon > 0 && (slash < 0 || colon < slash)) {
      throw new IllegalArgumentException("unsupported storage location scheme '" + location.substring(0, colon)
          + "' in '" + location + "': use s3://bucket/path, file:///path or an absolute path");
    }
    throw new IllegalArgumentException(
        "storage location must be s3://bucket/path, file:///path or an absolute path, not relative: '"
            + location + "'");
  }

  private StorageLocation resolveS3(String location) {
    String rest = location.substring("s3://".length());
    int slash = rest.indexOf('/');
    String bucket = slash < 0 ? rest : rest.substring(0, slash);
    String prefix = slash < 0 ? "" : rest.substring(slash + 1);
    if (bucket.isEmpty()) {
      throw new IllegalArgumentException("S3 location has no bucket: '" + location + "'");
    }
    checkBucketName(bucket);
    if (s3Config == null) {
      throw new IllegalArgumentException("S3 location '" + location + "' given but no S3 configuration is set");
    }
    String rootKey;
    try {
      rootKey = ObjectKeys.normalizePrefix(prefix);
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid S3 location '" + location + "': " + e.getMessage(), e);
    }
    ObjectStore store = s3Stores.computeIfAbsent(bucket, b -> decorator.apply(S3ObjectStore.create(s3Config, b)));
    return new StorageLocation(store, rootKey);
  }

  private StorageLocation resolveLocal(String location, Path path) {
    Path root = path.getRoot();
    List<String> segments = new ArrayList<>();
    for (Path segment : path) { // the name elements below the root, exactly as written
      segments.add(segment.toString());
    }
    String rootKey;
    try {
      rootKey = segments.isEmpty() ? "" : ObjectKeys.checkKey(String.join("/", segments));
    } catch (IllegalArgumentException e) {
      throw new IllegalArgumentException("invalid local location '" + location + "': " + e.getMessage(), e);
    }
    ObjectStore store = localStores.computeIfAbsent(root,
        r -> decorator.apply(LocalObjectStore.withFsync(r, localFsync, localDirectIo)));
    return new StorageLocation(store, rootKey);
  }

  private static Path fileUriPath(String location) {
    try {
      URI uri = new URI(location);
      if (uri.getAuthority() != null && !uri.getAuthority().isEmpty()) {
        throw new IllegalArgumentException("file URI must not name a host: '" + location + "'");
      }
      if (uri.getPath() == null || !uri.getPath().startsWith("/")) {
        throw new IllegalArgumentException("file URI must hold an absolute path (file:///path): '" + location + "'");
      }
      return localPath(uri.getPath());
    } catch (URISyntaxException e) {
      throw new IllegalArgumentException("invalid file URI '" + location + "': " + e.getMessage(), e);
    }
  }

  private static Path localPath(String path) {
    try {
      Path parsed = Path.of(path);
      if (!parsed.isAbsolute()) {
        throw new IllegalArgumentException("local storage location must be absolute: '" + path + "'");
      }
      return parsed;
    } catch (InvalidPathException e) {
      throw new IllegalArgumentException("invalid local path '" + path + "': " + e.getMessage(), e);
    }
  }

  static String checkBucketName(String bucket) {
    if (bucket == null || !BUCKET.matcher(bucket).matches()) {
      throw new IllegalArgumentException("invalid S3 bucket name '" + bucket + "'");
    }
    return bucket;
  }

  @Override
  public void close() {
    closed = true;
    s3Stores.values().forEach(ObjectStore::close);
    s3Stores.clear();
    localStores.clear();
  }
}
