package dev.lancecommit.chaos.bench;

import dev.lancecommit.chaos.harness.FaultLog;
import dev.lancecommit.chaos.harness.S3FaultProxy;
import dev.lancecommit.coordinator.storage.S3Config;
import dev.lancecommit.testing.S3ProxyFixture;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URI;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.Map;

/**
 * Where a cell's tables live, the same for both systems: a local directory, an in-process s3proxy, or that s3proxy
 * behind {@link S3FaultProxy} adding a fixed latency to every request (a real S3 round trip is tens of
 * milliseconds; loopback s3proxy answers in one or two).
 */
final class BenchStore implements AutoCloseable {
  static final long ADDED_LATENCY_MILLIS = 20;

  enum Kind {
    LOCAL("local"),
    S3PROXY("s3proxy"),
    S3PROXY_20MS("s3proxy-20ms");

    private final String cliName;

    Kind(String cliName) {
      this.cliName = cliName;
    }

    String cliName() {
      return cliName;
    }

    static Kind parse(String value) {
      for (Kind kind : values()) {
        if (kind.cliName.equals(BenchOptions.lower(value))) {
          return kind;
        }
      }
      throw new IllegalArgumentException("unknown store '" + value + "' (local, s3proxy, s3proxy-20ms)");
    }
  }

  private final Kind kind;
  private final Path workDir;
  private final S3ProxyFixture s3;
  private final S3FaultProxy latency;

  private BenchStore(Kind kind, Path workDir, S3ProxyFixture s3, S3FaultProxy latency) {
    this.kind = kind;
    this.workDir = workDir;
    this.s3 = s3;
    this.latency = latency;
  }

  /** {@code s3} is the matrix's shared s3proxy (used by the S3 kinds only). */
  static BenchStore open(Kind kind, Path workDir, S3ProxyFixture s3) {
    if (kind == Kind.LOCAL) {
      return new BenchStore(kind, workDir, null, null);
    }
    S3FaultProxy proxy = null;
    if (kind == Kind.S3PROXY_20MS) {
      URI upstream = URI.create(s3.endpoint());
      proxy = new S3FaultProxy(upstream.getHost(), upstream.getPort(), 1, new FaultLog());
      try {
        proxy.start();
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
      proxy.setFixedLatency(ADDED_LATENCY_MILLIS);
    }
    return new BenchStore(kind, workDir, s3, proxy);
  }

  Kind kind() {
    return kind;
  }

  boolean isS3() {
    return s3 != null;
  }

  /** A location for {@code relative} (a path under the store's root). */
  String uri(String relative) {
    return s3 == null ? workDir.resolve(relative).toString() : s3.uri(relative);
  }

  /**
   * Removes what the run named {@code cell} wrote, on a local disk: stock Lance's tables and an in-process
   * coordinator's warehouse ({@code {cell}/}), and the tables of its namespace in a coordinator's own JVM
   * ({@code coordinator-local/{cell}/}; that coordinator's idle lanes for them expire on their own). Objects in
   * s3proxy stay: behind a round trip per request no table grows large enough to matter.
   */
  void removeTablesOf(String cell) {
    if (kind == Kind.LOCAL) {
      CommitBenchmark.deleteRecursively(workDir.resolve(cell));
      CommitBenchmark.deleteRecursively(workDir.resolve("coordinator-" + kind.cliName()).resolve(cell));
    }
  }

  /** The coordinator's S3 client settings (through the latency proxy when there is one); null for a local store. */
  S3Config s3Config() {
    if (s3 == null) {
      return null;
    }
    S3Config direct = s3.s3Config();
    return latency == null ? direct : new S3Config(latency.endpoint(), direct.region(), direct.pathStyle(),
        direct.accessKeyId(), direct.secretAccessKey(), direct.sessionToken(), direct.apiCallTimeout(),
        direct.apiCallAttemptTimeout());
  }

  /** Lance's storage options (through the latency proxy when there is one). */
  Map<String, String> lanceOptions() {
    if (s3 == null) {
      return Map.of();
    }
    Map<String, String> options = new HashMap<>(s3.lanceStorageOptions());
    if (latency != null) {
      options.put("aws_endpoint", latency.endpoint());
    }
    return Map.copyOf(options);
  }

  @Override
  public void close() {
    if (latency != null) {
      latency.close();
    }
  }
}
