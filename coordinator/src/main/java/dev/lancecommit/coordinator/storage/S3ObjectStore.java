package dev.lancecommit.coordinator.storage;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.TreeSet;
import software.amazon.awssdk.auth.credentials.AwsCredentialsProvider;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.awscore.retry.AwsRetryStrategy;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.ResponseBytes;
import software.amazon.awssdk.core.exception.SdkServiceException;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.http.SdkHttpClient;
import software.amazon.awssdk.http.apache.ApacheHttpClient;
import software.amazon.awssdk.regions.Region;
import software.amazon.awssdk.retries.api.RetryStrategy;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.S3ClientBuilder;
import software.amazon.awssdk.services.s3.model.CommonPrefix;
import software.amazon.awssdk.services.s3.model.DeleteObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectRequest;
import software.amazon.awssdk.services.s3.model.GetObjectResponse;
import software.amazon.awssdk.services.s3.model.HeadObjectRequest;
import software.amazon.awssdk.services.s3.model.HeadObjectResponse;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Request;
import software.amazon.awssdk.services.s3.model.ListObjectsV2Response;
import software.amazon.awssdk.services.s3.model.PutObjectRequest;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * An {@link ObjectStore} on one S3 bucket, over the synchronous SDK client with the Apache HTTP client.
 *
 * <p>Two clients share one connection pool: a normal one with the SDK's standard retries, and one without retries
 * for {@link #putIfAbsent}. A retried conditional put can get 412 because its own first attempt landed, which would
 * look like a lost race; without retries, any failure after sending surfaces as {@link StoreOutcomeUnknownException}
 * and the caller reads the key back.
 */
public final class S3ObjectStore implements ObjectStore {
  /** Below the idle timeout of common servers (S3 ~20 s, Jetty 30 s) so pooled connections are rarely stale. */
  private static final Duration CONNECTION_MAX_IDLE = Duration.ofSeconds(15);

  private final String bucket;
  private final SdkHttpClient httpClient;
  private final AwsCredentialsProvider credentials;
  private final S3Client client;
  private final S3Client conditionalClient;

  private S3ObjectStore(String bucket, SdkHttpClient httpClient, AwsCredentialsProvider credentials,
      S3Client client, S3Client conditionalClient) {
    this.bucket = bucket;
    this.httpClient = httpClient;
    this.credentials = credentials;
    this.client = client;
    this.conditionalClient = conditionalClient;
  }

  /** A store for {@code bucket}; it owns its HTTP connection pool until {@link #close()}. */
  public static S3ObjectStore create(S3Config config, String bucket) {
    ObjectStores.checkBucketName(bucket);
    SdkHttpClient http = ApacheHttpClient.builder()
        .connectionMaxIdleTime(CONNECTION_MAX_IDLE)
        .build();
    AwsCredentialsProvider credentials = config.credentialsProvider();
    S3Client client = null;
    try {
      client = clientBuilder(config, http, credentials, AwsRetryStrategy.defaultRetryStrategy()).build();
      S3Client conditional = clientBuilder(config, http, credentials, AwsRetryStrategy.doNotRetry()).build();
      return new S3ObjectStore(bucket, http, credentials, client, conditional);
    } catch (RuntimeException e) {
      if (client != null) {
        client.close();
      }
      http.close();
      throw e;
    }
  }

  private static S3ClientBuilder clientBuilder(S3Config config, SdkHttpClient http,
      AwsCredentialsProvider credentials, RetryStrategy retries) {
    S3ClientBuilder builder = S3Client.builder()
        .httpClient(http)
        .region(Region.of(config.region()))
        .forcePathStyle(config.pathStyle())
        .credentialsProvider(credentials)
        .overrideConfiguration(o -> o
            .apiCallTimeout(config.apiCallTimeout())
            .apiCallAttemptTimeout(config.apiCallAttemptTimeout())
            .retryStrategy(retries));
    if (config.endpoint() != null) {
      builder.endpointOverride(URI.create(config.endpoint()));
    }
    return builder;
  }

  public String bucket() {
    return bucket;
  }

  @Override
  public Optional<byte[]> get(String key) {
    ObjectKeys.checkKey(key);
    try {
      return Optional.of(client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key).build())
          .asByteArrayUnsafe());
    } catch (SdkException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      throw S3Failures.onRead("get", uriOf(key), e);
    }
  }

  @Override
  public Optional<ObjectInfo> head(String key) {
    ObjectKeys.checkKey(key);
    try {
      HeadObjectResponse response = client.headObject(HeadObjectRequest.builder().bucket(bucket).key(key).build());
      return Optional.of(new ObjectInfo(key, response.contentLength(), response.lastModified()));
    } catch (SdkException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      throw S3Failures.onRead("head", uriOf(key), e);
    }
  }

  /** A suffix range: one request answers whether the object exists, its size (Content-Range) and its tail. */
  @Override
  public Optional<ObjectTail> getTail(String key, int maxBytes) {
    ObjectKeys.checkKey(key);
    if (maxBytes <= 0) {
      throw new IllegalArgumentException("maxBytes must be positive: " + maxBytes);
    }
    try {
      ResponseBytes<GetObjectResponse> response = client.getObjectAsBytes(
          GetObjectRequest.builder().bucket(bucket).key(key).range("bytes=-" + maxBytes).build());
      byte[] bytes = response.asByteArrayUnsafe();
      String contentRange = response.response().contentRange();
      if (contentRange == null) {
        return Optional.of(ObjectTail.of(bytes, maxBytes)); // the server ignored the range: this is the whole object
      }
      return Optional.of(new ObjectTail(bytes, totalSize(contentRange)));
    } catch (SdkException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      if (e instanceof SdkServiceException service && service.statusCode() == 416) {
        // S3 cannot satisfy a suffix range of an empty object: ask its size instead
        return head(key).map(info -> new ObjectTail(new byte[0], info.size()));
      }
      throw S3Failures.onRead("getTail", uriOf(key), e);
    }
  }

  @Override
  public Optional<byte[]> getRange(String key, long offset, int length) {
    ObjectKeys.checkKey(key);
    if (offset < 0 || length < 0) {
      throw new IllegalArgumentException("bad range " + offset + "+" + length);
    }
    if (length == 0) {
      return head(key).map(info -> new byte[0]);
    }
    try {
      return Optional.of(client.getObjectAsBytes(GetObjectRequest.builder().bucket(bucket).key(key)
          .range("bytes=" + offset + "-" + (offset + length - 1)).build()).asByteArrayUnsafe());
    } catch (SdkException e) {
      if (isNotFound(e)) {
        return Optional.empty();
      }
      if (e instanceof SdkServiceException service && service.statusCode() == 416) {
        return head(key).map(info -> new byte[0]); // the range starts past the end
      }
      throw S3Failures.onRead("getRange", uriOf(key), e);
    }
  }

  /** The total of {@code Content-Range: bytes a-b/total}; a server ignoring the range sent the whole object. */
  private static long totalSize(String contentRange) {
    int slash = contentRange.lastIndexOf('/');
    if (slash >= 0 && slash + 1 < contentRange.length() && !contentRange.endsWith("*")) {
      try {
        return Long.parseLong(contentRange.substring(slash + 1).trim());
      } catch (NumberFormatException e) {
        // fall through: no total given
      }
    }
    throw new StoreException("Content-Range '" + contentRange + "' of a ranged read names no total size");
  }

  @Override
  public void put(String key, byte[] data) {
    ObjectKeys.checkKey(key);
    try {
      client.putObject(PutObjectRequest.builder().bucket(bucket).key(key).build(), RequestBody.fromBytes(data));
    } catch (SdkException e) {
      throw S3Failures.onWrite("put", uriOf(key), e);
    }
  }

  @Override
  public void putIfAbsent(String key, byte[] data) {
    ObjectKeys.checkKey(key);
    try {
      conditionalClient.putObject(
          PutObjectRequest.builder().bucket(bucket).key(key).ifNoneMatch("*").build(),
          RequestBody.fromBytes(data));
    } catch (SdkException e) {
      throw S3Failures.onConditionalPut(key, uriOf(key), e);
    }
  }

  @Override
  public List<ObjectInfo> list(String prefix) {
    String dir = ObjectKeys.normalizePrefix(prefix);
    List<ObjectInfo> found = new ArrayList<>();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(listRequest(dir).build())) {
        addObjects(page.contents(), found);
      }
    } catch (SdkException e) {
      throw S3Failures.onRead("list", uriOf(dir), e);
    }
    found.sort(Comparator.comparing(ObjectInfo::key));
    return List.copyOf(found);
  }

  @Override
  public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
    if (maxKeys < 1) {
      throw new IllegalArgumentException("maxKeys must be positive: " + maxKeys);
    }
    String dir = ObjectKeys.normalizePrefix(prefix);
    List<ObjectInfo> found = new ArrayList<>();
    try {
      addObjects(client.listObjectsV2(listRequest(dir).maxKeys(maxKeys).build()).contents(), found);
    } catch (SdkException e) {
      throw S3Failures.onRead("list", uriOf(dir), e);
    }
    found.sort(Comparator.comparing(ObjectInfo::key));
    return List.copyOf(found);
  }

  /** A recursive listing of everything under {@code dir} (a normalized prefix; empty for the whole bucket). */
  private ListObjectsV2Request.Builder listRequest(String dir) {
    return ListObjectsV2Request.builder().bucket(bucket).prefix(dir.isEmpty() ? null : dir + "/");
  }

  private static void addObjects(List<S3Object> objects, List<ObjectInfo> found) {
    for (S3Object object : objects) {
      if (!object.key().endsWith("/")) { // skip "directory marker" objects
        found.add(new ObjectInfo(object.key(), object.size(), object.lastModified()));
      }
    }
  }

  @Override
  public List<String> listDirectory(String prefix) {
    String dir = ObjectKeys.normalizePrefix(prefix);
    String s3Prefix = dir.isEmpty() ? "" : dir + "/";
    ListObjectsV2Request request = ListObjectsV2Request.builder()
        .bucket(bucket)
        .prefix(s3Prefix.isEmpty() ? null : s3Prefix)
        .delimiter("/")
        .build();
    TreeSet<String> names = new TreeSet<>();
    try {
      for (ListObjectsV2Response page : client.listObjectsV2Paginator(request)) {
        for (S3Object object : page.contents()) {
          String name = object.key().substring(s3Prefix.length());
          if (!name.isEmpty()) {
            names.add(name);
          }
        }
        for (CommonPrefix common : page.commonPrefixes()) {
          String name = common.prefix().substring(s3Prefix.length());
          name = name.endsWith("/") ? name.substring(0, name.length() - 1) : name;
          if (!name.isEmpty()) {
            names.add(name);
          }
        }
      }
    } catch (SdkException e) {
      throw S3Failures.onRead("listDirectory", uriOf(dir), e);
    }
    return List.copyOf(names);
  }

  @Override
  public void delete(String key) {
    ObjectKeys.checkKey(key);
    try {
      client.deleteObject(DeleteObjectRequest.builder().bucket(bucket).key(key).build());
    } catch (SdkException e) {
      if (isNotFound(e)) {
        return;
      }
      throw S3Failures.onWrite("delete", uriOf(key), e);
    }
  }

  @Override
  public String uri() {
    return "s3://" + bucket;
  }

  @Override
  public String uriOf(String key) {
    return key.isEmpty() ? uri() : uri() + "/" + key;
  }

  @Override
  public void close() {
    conditionalClient.close();
    client.close();
    httpClient.close();
    if (credentials instanceof AutoCloseable closeable) {
      try {
        closeable.close();
      } catch (Exception e) {
        // nothing useful to do while shutting down
      }
    }
  }

  @Override
  public String toString() {
    return "S3ObjectStore[" + uri() + "]";
  }

  /** 404 for the key; a missing bucket (NoSuchBucket) is a configuration error, not an absent key. */
  private static boolean isNotFound(SdkException e) {
    return e instanceof SdkServiceException service
        && service.statusCode() == 404
        && !(e instanceof AwsServiceException aws && aws.awsErrorDetails() != null
            && "NoSuchBucket".equals(aws.awsErrorDetails().errorCode()));
  }
}
