package dev.lancecommit.testing;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.ServerSocket;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.extension.AfterAllCallback;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.BeforeEachCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.LifecycleMethodExecutionExceptionHandler;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.services.s3.S3Client;

/**
 * A real SeaweedFS ({@code weed mini}: master, volume, filer and S3 gateway in one child process) on free loopback
 * ports, in a temporary directory, with IAM and STS enabled: one admin identity (the coordinator's base
 * credentials), a role {@link #ROLE_ARN} that this identity may assume with {@code sts:AssumeRole}, whose policy
 * allows {@code s3:*} on the test bucket, and a known STS signing key. SeaweedFS evaluates the inline session policy
 * of every assumed session, which is what proves vended credentials are denied what they must not do.
 *
 * <p>The {@code weed} binary comes from {@code deploy/local/install-seaweedfs.sh}; it is looked up in
 * {@code $SEAWEEDFS_WEED}, {@code $(go env GOPATH)/bin/weed} ({@code $GOPATH} or {@code ~/go}) and {@code PATH}.
 * When it is absent, every test of the class is skipped with a JUnit assumption that says how to install it (per
 * test, so the reason shows in the Surefire report); a class's own {@code @BeforeAll} should then do nothing, see
 * {@link #isRunning()}.
 *
 * <p>Use it as {@code @RegisterExtension static final SeaweedFsFixture WEED = new SeaweedFsFixture();}.
 */
public final class SeaweedFsFixture implements BeforeAllCallback, BeforeEachCallback, AfterAllCallback,
    LifecycleMethodExecutionExceptionHandler, AutoCloseable {
  public static final String ADMIN_ACCESS_KEY = "lcc-seaweed-admin";
  public static final String ADMIN_SECRET_KEY = "lcc-seaweed-admin-secret";
  public static final String ACCOUNT_ID = "000000000000";
  public static final String ROLE_NAME = "LanceTableAccess";
  public static final String ROLE_ARN = "arn:aws:iam::" + ACCOUNT_ID + ":role/" + ROLE_NAME;
  public static final String REGION = "us-east-1";
  public static final String DEFAULT_BUCKET = "lance-sts-test";
  /** HS256 key SeaweedFS signs session tokens with (tests re-sign tokens with it to prove expiry is enforced). */
  public static final byte[] STS_SIGNING_KEY =
      "lancecommit-seaweedfs-sts-test-signing-key-32b".getBytes(StandardCharsets.US_ASCII);
  public static final String STS_ISSUER = "lancecommit-test-sts";

  private static final Duration STARTUP_TIMEOUT = Duration.ofSeconds(60);
  private static final Duration PROBE_CALL_TIMEOUT = Duration.ofSeconds(10);
  private static final Duration STOP_TIMEOUT = Duration.ofSeconds(15);
  private static final int PORTS = 8;
  private static final int START_ATTEMPTS = 3;

  private final String bucket;
  private Path dir;
  private Process process;
  private String endpoint;
  private Thread shutdownHook;

  public SeaweedFsFixture() {
    this(DEFAULT_BUCKET);
  }

  public SeaweedFsFixture(String bucket) {
    this.bucket = bucket;
  }

  /** The {@code weed} binary, if installed. */
  public static Optional<Path> weedBinary() {
    List<Path> candidates = new ArrayList<>();
    String explicit = System.getenv("SEAWEEDFS_WEED");
    if (explicit != null && !explicit.isBlank()) {
      candidates.add(Path.of(explicit));
    }
    String gopath = System.getenv("GOPATH");
    if (gopath != null && !gopath.isBlank()) {
      candidates.add(Path.of(gopath.split(":")[0], "bin", "weed"));
    }
    candidates.add(Path.of(System.getProperty("user.home"), "go", "bin", "weed"));
    String path = System.getenv("PATH");
    if (path != null) {
      for (String entry : path.split(":")) {
        if (!entry.isBlank()) {
          candidates.add(Path.of(entry, "weed"));
        }
      }
    }
    return candidates.stream().filter(Files::isExecutable).findFirst();
  }

  /**
   * Starts SeaweedFS, creates the bucket and waits until an object can be written, read and deleted; does nothing
   * if already started. Free ports are picked, released and then bound by weed, so another process can take one in
   * between (weed then exits), and a CI run once saw a weed that answered bucket requests but hung every write: a
   * weed that exits or is not writable in time is started again on new ports (up to {@value #START_ATTEMPTS} times).
   */
  public synchronized SeaweedFsFixture start() {
    if (process != null) {
      return this;
    }
    Path weed = weedBinary().orElseThrow(() -> new IllegalStateException(missingBinaryMessage()));
    for (int attempt = 1; ; attempt++) {
      try {
        launch(weed);
        createBucketWhenReady(bucket);
        awaitWritable();
        return this;
      } catch (IOException e) {
        close();
        throw new UncheckedIOException("could not start SeaweedFS", e);
      } catch (RuntimeException e) {
        String log = log();
        close();
        if (attempt == START_ATTEMPTS) {
          throw new IllegalStateException("could not start SeaweedFS after " + attempt + " attempts: "
              + e.getMessage() + "; weed.log: " + logSummary(log) + "\n--- weed.log ---\n" + log, e);
        }
      }
    }
  }

  private void launch(Path weed) throws IOException {
    dir = Files.createTempDirectory("lcc-seaweedfs-");
    Path data = Files.createDirectories(dir.resolve("data"));
    Path config = dir.resolve("s3-iam.json");
    Files.writeString(config, configJson());
    int[] ports = freePorts(PORTS);
    endpoint = "http://127.0.0.1:" + ports[6];
    // Loopback only; the Iceberg and Lance catalog ports, WebDAV, the admin UI and telemetry are switched off.
    List<String> command = List.of(weed.toString(), "mini",
        "-dir=" + data,
        "-ip=127.0.0.1", "-ip.bind=127.0.0.1",
        "-master.port=" + ports[0], "-master.port.grpc=" + ports[1],
        "-volume.port=" + ports[2], "-volume.port.grpc=" + ports[3],
        "-filer.port=" + ports[4], "-filer.port.grpc=" + ports[5],
        "-s3.port=" + ports[6], "-s3.port.grpc=" + ports[7],
        "-s3.port.iceberg=0", "-s3.port.lance=0",
        "-s3.config=" + config, "-s3.iam.config=" + config, "-s3.iam.readOnly=true",
        "-s3.localSocket=" + dir.resolve("s3.sock"), "-filer.localSocket=" + dir.resolve("filer.sock"),
        "-master.telemetry=false", "-webdav=false", "-admin.ui=false");
    process = new ProcessBuilder(command)
        .directory(dir.toFile())
        .redirectErrorStream(true)
        .redirectOutput(dir.resolve("weed.log").toFile())
        .start();
    if (shutdownHook == null) {
      shutdownHook = new Thread(this::stopProcess, "seaweedfs-fixture-stop");
      Runtime.getRuntime().addShutdownHook(shutdownHook);
    }
  }

  public String endpoint() {
    requireStarted();
    return endpoint;
  }

  public String bucket() {
    return bucket;
  }

  /** {@code s3://bucket/relative}. */
  public String uri(String relative) {
    return "s3://" + bucket + "/" + relative;
  }

  public AwsCredentialsProvider adminCredentials() {
    return StaticCredentialsProvider.create(AwsBasicCredentials.create(ADMIN_ACCESS_KEY, ADMIN_SECRET_KEY));
  }

  /** A path-style S3 client for this store with the given credentials; close it when done. */
  public S3Client client(AwsCredentialsProvider credentials) {
    return S3Client.builder()
        .httpClientBuilder(ApacheHttpClient.builder())
        .endpointOverride(URI.create(endpoint()))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(credentials)
        .overrideConfiguration(o -> o.apiCallTimeout(Duration.ofSeconds(30)))
        .build();
  }

  /** A client with the admin identity (not restricted by any session policy). */
  public S3Client adminClient() {
    return client(adminCredentials());
  }

  /** What SeaweedFS printed so far (for failure messages). */
  public String log() {
    if (dir == null) {
      return "";
    }
    try {
      Path log = dir.resolve("weed.log");
      if (!Files.exists(log)) {
        return "";
      }
      String text = Files.readString(log, StandardCharsets.UTF_8);
      return text.length() > 20_000 ? text.substring(text.length() - 20_000) : text;
    } catch (IOException e) {
      return "(log unreadable: " + e + ")";
    }
  }

  /** True between a successful {@link #start()} and {@link #close()}. */
  public synchronized boolean isRunning() {
    return process != null;
  }

  @Override
  public void beforeAll(ExtensionContext context) {
    if (weedBinary().isPresent()) {
      start();
    }
  }

  @Override
  public void beforeEach(ExtensionContext context) {
    Assumptions.assumeTrue(weedBinary().isPresent(), SeaweedFsFixture::missingBinaryMessage);
  }

  /** A class's set-up that fails against a running weed says what weed logged (the report shows only this line). */
  @Override
  public void handleBeforeAllMethodExecutionException(ExtensionContext context, Throwable failure) throws Throwable {
    if (!isRunning()) {
      throw failure;
    }
    throw new IllegalStateException(failure + "; weed.log: " + logSummary(log()), failure);
  }

  @Override
  public void afterAll(ExtensionContext context) {
    close();
  }

  @Override
  public synchronized void close() {
    stopProcess();
    if (shutdownHook != null) {
      try {
        Runtime.getRuntime().removeShutdownHook(shutdownHook);
      } catch (IllegalStateException e) {
        // the JVM is already shutting down; the hook stops the process
      }
      shutdownHook = null;
    }
    if (dir != null) {
      deleteRecursively(dir);
      dir = null;
    }
  }

  private static String missingBinaryMessage() {
    return "SeaweedFS 'weed' binary not found ($SEAWEEDFS_WEED, $(go env GOPATH)/bin/weed or PATH): run "
        + "deploy/local/install-seaweedfs.sh (CI does) to run the credential-vending tests against a real "
        + "policy-enforcing store";
  }

  private String configJson() {
    String signingKey = Base64.getEncoder().encodeToString(STS_SIGNING_KEY);
    return """
        {
          "identities": [
            {
              "name": "coordinator",
              "credentials": [{"accessKey": "%1$s", "secretKey": "%2$s"}],
              "actions": ["Admin", "Read", "List", "Tagging", "Write"]
            }
          ],
          "sts": {
            "tokenDuration": "1h",
            "maxSessionLength": "12h",
            "issuer": "%3$s",
            "signingKey": "%4$s",
            "accountId": "%5$s"
          },
          "policy": {"defaultEffect": "Deny"},
          "roles": [
            {
              "roleName": "%6$s",
              "roleArn": "%7$s",
              "trustPolicy": {
                "Version": "2012-10-17",
                "Statement": [
                  {
                    "Effect": "Allow",
                    "Principal": {"AWS": "arn:aws:iam::%5$s:user/coordinator"},
                    "Action": "sts:AssumeRole"
                  }
                ]
              },
              "attachedPolicies": ["WarehouseAccess"]
            }
          ],
          "policies": [
            {
              "name": "WarehouseAccess",
              "document": {
                "Version": "2012-10-17",
                "Statement": [
                  {
                    "Effect": "Allow",
                    "Action": ["s3:*"],
                    "Resource": ["arn:aws:s3:::%8$s", "arn:aws:s3:::%8$s/*"]
                  }
                ]
              }
            }
          ]
        }
        """.formatted(ADMIN_ACCESS_KEY, ADMIN_SECRET_KEY, STS_ISSUER, signingKey, ACCOUNT_ID, ROLE_NAME, ROLE_ARN,
        bucket);
  }

  private void createBucketWhenReady(String name) {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    RuntimeException last = null;
    try (S3Client admin = adminClient()) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("weed exited with status " + process.exitValue());
        }
        try {
          if (admin.listBuckets().buckets().stream().noneMatch(b -> b.name().equals(name))) {
            admin.createBucket(b -> b.bucket(name));
          }
          admin.headBucket(b -> b.bucket(name));
          return;
        } catch (SdkException e) {
          last = e;
          sleep(250);
        }
      }
    }
    throw new IllegalStateException("SeaweedFS S3 was not ready within " + STARTUP_TIMEOUT, last);
  }

  /** The whole write path (S3 gateway, filer, master's volume assignment, volume server) answers a small object. */
  private void awaitWritable() {
    long deadline = System.nanoTime() + STARTUP_TIMEOUT.toNanos();
    String key = "lcc-fixture-probe/" + System.nanoTime();
    RuntimeException last = null;
    try (S3Client admin = S3Client.builder()
        .httpClientBuilder(ApacheHttpClient.builder())
        .endpointOverride(URI.create(endpoint))
        .region(Region.of(REGION))
        .forcePathStyle(true)
        .credentialsProvider(adminCredentials())
        .overrideConfiguration(o -> o.apiCallTimeout(PROBE_CALL_TIMEOUT))
        .build()) {
      while (System.nanoTime() < deadline) {
        if (!process.isAlive()) {
          throw new IllegalStateException("weed exited with status " + process.exitValue());
        }
        try {
          admin.putObject(b -> b.bucket(bucket).key(key), RequestBody.fromString("ready"));
          String read = admin.getObjectAsBytes(b -> b.bucket(bucket).key(key)).asUtf8String();
          admin.deleteObject(b -> b.bucket(bucket).key(key));
          if (read.equals("ready")) {
            return;
          }
        } catch (SdkException e) {
          last = e;
          sleep(250);
        }
      }
    }
    throw new IllegalStateException("SeaweedFS did not accept a write within " + STARTUP_TIMEOUT, last);
  }

  /** The warning and error lines of a weed log on one line, for a failure's summary. */
  private static String logSummary(String log) {
    String lines = log.lines().filter(l -> l.startsWith("E") || l.startsWith("W") || l.contains("rror"))
        .reduce((a, b) -> a + " | " + b).orElse("(no warnings or errors)");
    return lines.length() > 1_500 ? "..." + lines.substring(lines.length() - 1_500) : lines;
  }

  private void stopProcess() {
    Process p = process;
    process = null;
    if (p == null) {
      return;
    }
    p.destroy();
    try {
      if (!p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS)) {
        p.destroyForcibly();
        p.waitFor(STOP_TIMEOUT.toMillis(), TimeUnit.MILLISECONDS);
      }
    } catch (InterruptedException e) {
      p.destroyForcibly();
      Thread.currentThread().interrupt();
    }
  }

  private void requireStarted() {
    if (process == null) {
      throw new IllegalStateException("SeaweedFsFixture is not started");
    }
  }

  /** Distinct free loopback ports, all held open until every one is chosen. */
  private static int[] freePorts(int count) throws IOException {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress());
        sockets.add(socket);
        ports[i] = socket.getLocalPort();
      }
      return ports;
    } finally {
      for (ServerSocket socket : sockets) {
        socket.close();
      }
    }
  }

  private static void sleep(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IllegalStateException("interrupted while waiting for SeaweedFS", e);
    }
  }

  private static void deleteRecursively(Path root) {
    try (Stream<Path> paths = Files.walk(root)) {
      paths.sorted(Comparator.reverseOrder()).forEach(p -> {
        try {
          Files.deleteIfExists(p);
        } catch (IOException e) {
          // best effort during teardown
        }
      });
    } catch (IOException e) {
      // best effort during teardown
    }
  }
}
