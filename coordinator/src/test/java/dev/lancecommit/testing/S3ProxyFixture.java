package dev.lancecommit.testing;

import dev.lancecommit.coordinator.storage.S3Config;
import java.net.URI;
import java.time.Duration;
import java.util.Map;
import org.gaul.s3proxy.S3Proxy;
import org.gaul.s3proxy.auth.AuthenticationType;
import org.gaul.s3proxy.blobstore.BlobStore;
import org.gaul.s3proxy.nio2blob.TransientNio2BlobStore;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;

/**
 * s3proxy running in this JVM on a free loopback port, with an in-memory blob store, AWS v4 signatures and one
 * bucket. Use it as {@code @RegisterExtension static final S3ProxyFixture S3 = new S3ProxyFixture();} (started before
 * the class, stopped after) or as {@code try (S3ProxyFixture s3 = S3ProxyFixture.started()) {...}}.
 *
 * <p>s3proxy's {@code If-None-Match: *} is atomic, which is what the coordinator's commits need.
 */
public final class S3ProxyFixture implements BeforeAllCallback, AfterAllCallback, AutoCloseable {
  public static final String ACCESS_KEY = "lancecommit-test-access-key";
  public static final String SECRET_KEY = "lancecommit-test-secret-key";
  public static final String REGION = "us-east-1";
  public static final String DEFAULT_BUCKET = "lance-test";

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(30);

  private final String bucket;
  private BlobStore blobStore;
  private S3Proxy proxy;
  private String endpoint;

  public S3ProxyFixture() {
    this(DEFAULT_BUCKET);
  }

  public S3ProxyFixture(String bucket) {
    this.bucket = bucket;
  }

  /** A started fixture with the default bucket; close it when done. */
  public static S3ProxyFixture started() {
    return new S3ProxyFixture().start();
  }

  /** Starts s3proxy and creates the bucket; does nothing if already started. */
  public synchronized S3ProxyFixture start() {
    if (proxy != null) {
      return this;
    }
    blobStore = new TransientNio2BlobStore();
    S3Proxy started = S3Proxy.builder()
        .blobStore(blobStore)
        .endpoint(URI.create("http://127.0.0.1:0"))
        .awsAuthentication(AuthenticationType.AWS_V2_OR_V4, ACCESS_KEY, SECRET_KEY)
        .build();
    try {
      started.start();
      long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
      while (!"STARTED".equals(started.getState())) {
        if (System.nanoTime() > deadline) {
          throw new IllegalStateException("s3proxy did not start within " + STARTUP_TIMEOUT);
        }
        Thread.sleep(10);
      }
    } catch (Exception e) {
      stopQuietly(started);
      blobStore.close();
      blobStore = null;
      throw new IllegalStateException("could not start s3proxy", e);
    }
    proxy = started;
    endpoint = "http://127.0.0.1:" + started.getPort();
    createBucket(bucket);
    return this;
  }

  /** Creates another bucket in the same s3proxy. */
  public void createBucket(String name) {
    requireStarted();
    if (!blobStore.containerExists(name)) {
      blobStore.createContainer(name);
    }
  }

  public String endpoint() {
    requireStarted();
    return endpoint;
  }

  public String bucket() {
    return bucket;
  }

  public String accessKey() {
    return ACCESS_KEY;
  }

  public String secretKey() {
    return SECRET_KEY;
  }

  public String region() {
    return REGION;
  }

  /** {@code s3://bucket/relative} (or {@code s3://bucket} for ""). */
  public String uri(String relative) {
    return relative.isEmpty() ? "s3://" + bucket : "s3://" + bucket + "/" + relative;
  }

  /** Client settings for this s3proxy: path-style, static test keys, generous timeouts. */
  public S3Config s3Config() {
    return new S3Config(endpoint(), REGION, true, ACCESS_KEY, SECRET_KEY, null,
        Duration.ofSeconds(30), Duration.ofSeconds(10));
  }

  /** Storage options for Lance (Rust object_store AmazonS3ConfigKey / ClientConfigKey names). */
  public Map<String, String> lanceStorageOptions() {
    return Map.of(
        "aws_access_key_id", ACCESS_KEY,
        "aws_secret_access_key", SECRET_KEY,
        "aws_endpoint", endpoint(),
        "aws_region", REGION,
        "allow_http", "true",
        "aws_virtual_hosted_style_request", "false");
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    start();
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public synchronized void close() {
    if (proxy != null) {
      stopQuietly(proxy);
      proxy = null;
    }
    if (blobStore != null) {
      blobStore.close();
      blobStore = null;
    }
  }

  private void requireStarted() {
    if (proxy == null) {
      throw new IllegalStateException("S3ProxyFixture is not started");
    }
  }

  private static void stopQuietly(S3Proxy proxy) {
    try {
      proxy.stop();
    } catch (Exception e) {
      // best effort during teardown
    }
  }
}
