package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.SeaweedFsFixture;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import software.amazon.awssdk.auth.credentials.AwsBasicCredentials;
import software.amazon.awssdk.auth.credentials.AwsSessionCredentials;
import software.amazon.awssdk.auth.credentials.StaticCredentialsProvider;
import software.amazon.awssdk.core.sync.RequestBody;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.NoSuchKeyException;
import software.amazon.awssdk.services.s3.model.S3Exception;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Vended credentials against a store that enforces IAM session policies (SeaweedFS): what a writer may and may not
 * do with them, and that the store refuses forged or expired session tokens.
 */
class StsCredentialVendorSeaweedFsTest {
  @RegisterExtension
  static final SeaweedFsFixture WEED = new SeaweedFsFixture();

  private static final String TABLE_PREFIX = "wh/ns/t.lance";
  private static final String OTHER_PREFIX = "wh/ns/other.lance";
  private static final Duration SESSION = Duration.ofSeconds(900);

  private static StsCredentialVendor vendor;
  private static S3Client admin;
  private static String table;

  @BeforeAll
  static void setUp() {
    if (!WEED.isRunning()) {
      return; // no weed binary: the fixture skips every test
    }
    vendor = new StsCredentialVendor(settings(SeaweedFsFixture.ROLE_ARN));
    admin = WEED.adminClient();
    table = WEED.uri(TABLE_PREFIX);
    put(admin, OTHER_PREFIX + "/data/secret.lance", "other table's data");
    put(admin, TABLE_PREFIX + "/_versions/18446744073709551614.manifest", "published by the coordinator");
    put(admin, TABLE_PREFIX + "/_refs/tags/release.json", "{\"branch\":null,\"version\":1,\"manifestSize\":1}");
  }

  @AfterAll
  static void tearDown() {
    if (admin != null) {
      admin.close();
    }
    if (vendor != null) {
      vendor.close();
    }
  }

  @Test
  void readWriteCredentialsWriteDataAndStageManifests() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ_WRITE);
    String staged = TABLE_PREFIX + "/_versions/1.manifest-" + UUID.randomUUID();
    try (S3Client writer = client(credentials)) {
      put(writer, TABLE_PREFIX + "/data/x.lance", "fragment bytes");
      put(writer, staged, "staged manifest");
      put(writer, TABLE_PREFIX + "/_transactions/0-" + UUID.randomUUID() + ".txn", "transaction");

      assertThat(get(writer, TABLE_PREFIX + "/data/x.lance")).isEqualTo("fragment bytes");
      assertThat(get(writer, TABLE_PREFIX + "/_versions/18446744073709551614.manifest"))
          .isEqualTo("published by the coordinator");
      assertThat(list(writer, TABLE_PREFIX + "/"))
          .contains(TABLE_PREFIX + "/data/x.lance", staged, TABLE_PREFIX + "/_versions/18446744073709551614.manifest");
      writer.deleteObject(b -> b.bucket(WEED.bucket()).key(staged));
    }
    assertThat(exists(staged)).isFalse();
  }

  @Test
  void readWriteCredentialsCannotPublishOrRemoveAVersion() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ_WRITE);
    try (S3Client writer = client(credentials)) {
      for (String manifest : List.of(
          TABLE_PREFIX + "/_versions/18446744073709551613.manifest",
          TABLE_PREFIX + "/_versions/1.manifest",
          TABLE_PREFIX + "/tree/b1/_versions/1.manifest")) {
        assertAccessDenied(() -> put(writer, manifest, "forged version"));
        assertThat(exists(manifest)).as(manifest).isFalse();
      }
      String published = TABLE_PREFIX + "/_versions/18446744073709551614.manifest";
      assertAccessDenied(() -> put(writer, published, "overwrite"));
      assertAccessDenied(() -> writer.deleteObject(b -> b.bucket(WEED.bucket()).key(published)));
      assertThat(get(admin, published)).isEqualTo("published by the coordinator");
    }
  }

  @Test
  void readWriteCredentialsCannotWriteRefs() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ_WRITE);
    String tag = TABLE_PREFIX + "/_refs/tags/release.json";
    try (S3Client writer = client(credentials)) {
      assertThat(get(writer, tag)).contains("\"version\":1"); // Lance reads tags with these credentials
      for (String ref : List.of(TABLE_PREFIX + "/_refs/tags/forged.json",
          TABLE_PREFIX + "/_refs/branches/forged.json", TABLE_PREFIX + "/_refs/branches/a%2Fb.json")) {
        assertAccessDenied(() -> put(writer, ref, "{}"));
        assertThat(exists(ref)).as(ref).isFalse();
      }
      assertAccessDenied(() -> put(writer, tag, "moved"));
      assertAccessDenied(() -> writer.deleteObject(b -> b.bucket(WEED.bucket()).key(tag)));
      // a branch's data files and staged manifests are the writer's, its versions are not
      put(writer, TABLE_PREFIX + "/tree/dev/data/y.lance", "branch fragment");
      put(writer, TABLE_PREFIX + "/tree/dev/_versions/3.manifest-" + UUID.randomUUID(), "staged on the branch");
    }
    assertThat(get(admin, tag)).contains("\"version\":1");
  }

  @Test
  void credentialsDoNotReachAnotherTable() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ_WRITE);
    try (S3Client writer = client(credentials)) {
      assertAccessDenied(() -> get(writer, OTHER_PREFIX + "/data/secret.lance"));
      assertAccessDenied(() -> list(writer, OTHER_PREFIX + "/"));
      assertAccessDenied(() -> list(writer, "wh/ns/"));
      assertAccessDenied(() -> list(writer, ""));
      assertAccessDenied(() -> put(writer, OTHER_PREFIX + "/data/y.lance", "intruder"));
      assertAccessDenied(() -> put(writer, "wh/ns/t.lance2/data/y.lance", "sibling"));
      assertAccessDenied(() -> put(writer, TABLE_PREFIX + "/elsewhere.bin", "outside the writable folders"));
    }
    assertThat(exists(OTHER_PREFIX + "/data/y.lance")).isFalse();
  }

  @Test
  void readCredentialsCannotWrite() {
    VendedCredentials credentials = vendor.vend("bob", table, AccessMode.READ);
    try (S3Client reader = client(credentials)) {
      assertThat(get(reader, TABLE_PREFIX + "/_versions/18446744073709551614.manifest"))
          .isEqualTo("published by the coordinator");
      assertThat(list(reader, TABLE_PREFIX + "/_versions/"))
          .contains(TABLE_PREFIX + "/_versions/18446744073709551614.manifest");
      assertAccessDenied(() -> put(reader, TABLE_PREFIX + "/data/r.lance", "reader write"));
      assertAccessDenied(() -> put(reader, TABLE_PREFIX + "/_versions/2.manifest-" + UUID.randomUUID(), "stage"));
    }
    assertThat(exists(TABLE_PREFIX + "/data/r.lance")).isFalse();
  }

  @Test
  void storageOptionsCarryTheSessionAndItsExpiry() {
    Instant before = Instant.now();
    VendedCredentials credentials = vendor.vend("carol-" + UUID.randomUUID(), table, AccessMode.READ);
    Instant after = Instant.now();

    assertThat(credentials.storageOptions()).containsOnlyKeys("aws_access_key_id", "aws_secret_access_key",
        "aws_session_token", "aws_region", "aws_endpoint", "allow_http", "expires_at_millis");
    assertThat(credentials.storageOptions()).containsEntry("aws_endpoint", WEED.endpoint())
        .containsEntry("allow_http", "true").containsEntry("aws_region", SeaweedFsFixture.REGION);
    assertThat(credentials.accessKeyId()).isNotEqualTo(SeaweedFsFixture.ADMIN_ACCESS_KEY);
    // The store states expiry to the second: the shortest session STS allows (900 s) from the request.
    long expiresAt = Long.parseLong(credentials.storageOptions().get("expires_at_millis"));
    assertThat(expiresAt).isBetween(before.plus(SESSION).minusSeconds(1).toEpochMilli(),
        after.plus(SESSION).toEpochMilli());
  }

  @Test
  void storeRefusesATamperedSessionToken() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ);
    String withoutSessionPolicy = SessionTokens.tampered(credentials.sessionToken(), claims -> claims.remove("spol"));
    assertThat(SessionTokens.claims(credentials.sessionToken()).has("spol")).isTrue();

    try (S3Client forged = client(credentials, withoutSessionPolicy)) {
      assertRefused(() -> get(forged, TABLE_PREFIX + "/_versions/18446744073709551614.manifest"));
      assertRefused(() -> get(forged, OTHER_PREFIX + "/data/secret.lance"));
    }
  }

  @Test
  void storeRefusesAnExpiredSessionToken() {
    VendedCredentials credentials = vendor.vend("alice", table, AccessMode.READ);
    long past = Instant.now().minusSeconds(60).getEpochSecond();
    String expired = SessionTokens.resigned(credentials.sessionToken(), SeaweedFsFixture.STS_SIGNING_KEY,
        claims -> claims.put("exp", past));
    // Control: the same re-signing with the real expiry is accepted, so only the expiry is refused below.
    String resignedValid = SessionTokens.resigned(credentials.sessionToken(), SeaweedFsFixture.STS_SIGNING_KEY,
        claims -> { });
    String key = TABLE_PREFIX + "/_versions/18446744073709551614.manifest";

    try (S3Client valid = client(credentials, resignedValid); S3Client stale = client(credentials, expired)) {
      assertThat(get(valid, key)).isEqualTo("published by the coordinator");
      assertRefused(() -> get(stale, key));
    }
  }

  @Test
  void sessionsAreCachedPerPrincipalTableAndModeUntilMostOfTheirLifetimeHasPassed() {
    ManualClock clock = new ManualClock(Instant.now());
    try (StsCredentialVendor cached = new StsCredentialVendor(settings(SeaweedFsFixture.ROLE_ARN), clock)) {
      VendedCredentials first = cached.vend("dave", table, AccessMode.READ_WRITE);

      assertThat(cached.vend("dave", table, AccessMode.READ_WRITE)).isSameAs(first);
      assertThat(cached.vend("dave", table + "/", AccessMode.READ_WRITE)).isSameAs(first);
      assertThat(cached.vend("dave", table, AccessMode.READ).accessKeyId()).isNotEqualTo(first.accessKeyId());
      assertThat(cached.vend("erin", table, AccessMode.READ_WRITE).accessKeyId())
          .isNotEqualTo(first.accessKeyId());
      assertThat(cached.vend("dave", WEED.uri(OTHER_PREFIX), AccessMode.READ_WRITE).accessKeyId())
          .isNotEqualTo(first.accessKeyId());

      clock.advance(SESSION.multipliedBy(70).dividedBy(100));
      assertThat(cached.vend("dave", table, AccessMode.READ_WRITE)).isSameAs(first);

      clock.advance(SESSION.multipliedBy(10).dividedBy(100));
      VendedCredentials refreshed = cached.vend("dave", table, AccessMode.READ_WRITE);
      assertThat(refreshed.accessKeyId()).isNotEqualTo(first.accessKeyId());
      assertThat(refreshed.expiresAt()).isAfterOrEqualTo(first.expiresAt());
    }
  }

  @Test
  void badLocationsAreRefusedBeforeAskingSts() {
    assertThatThrownBy(() -> vendor.vend("alice", WEED.uri("wh/*"), AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class);
    assertThatThrownBy(() -> vendor.vend("alice", "s3://" + WEED.bucket(), AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class);
    assertThatThrownBy(() -> vendor.vend("alice", "/tmp/t.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class);
  }

  @Test
  void stsRefusalsSurfaceAsVendingFailures() {
    StsSettings unknownRole = settings("arn:aws:iam::" + SeaweedFsFixture.ACCOUNT_ID + ":role/NoSuchRole");
    StsSettings badKeys = new StsSettings(WEED.endpoint(), SeaweedFsFixture.REGION, SeaweedFsFixture.ROLE_ARN,
        StaticCredentialsProvider.create(AwsBasicCredentials.create(SeaweedFsFixture.ADMIN_ACCESS_KEY, "wrong")),
        SESSION, null, WEED.endpoint(), 0.75, 100, Duration.ofSeconds(20));
    try (StsCredentialVendor noRole = new StsCredentialVendor(unknownRole);
        StsCredentialVendor wrongKeys = new StsCredentialVendor(badKeys)) {
      assertThatThrownBy(() -> noRole.vend("alice", table, AccessMode.READ))
          .isInstanceOf(CredentialVendingException.class).hasMessageContaining("NoSuchRole");
      assertThatThrownBy(() -> wrongKeys.vend("alice", table, AccessMode.READ))
          .isInstanceOf(CredentialVendingException.class);
    }
  }

  private static StsSettings settings(String roleArn) {
    return StsSettings.of(WEED.endpoint(), SeaweedFsFixture.REGION, roleArn, WEED.adminCredentials(),
        WEED.endpoint()).withSessionDuration(SESSION);
  }

  private static S3Client client(VendedCredentials credentials) {
    return client(credentials, credentials.sessionToken());
  }

  private static S3Client client(VendedCredentials credentials, String sessionToken) {
    return WEED.client(StaticCredentialsProvider.create(AwsSessionCredentials.create(
        credentials.accessKeyId(), credentials.secretAccessKey(), sessionToken)));
  }

  private static void put(S3Client client, String key, String content) {
    client.putObject(b -> b.bucket(WEED.bucket()).key(key), RequestBody.fromString(content));
  }

  private static String get(S3Client client, String key) {
    return client.getObjectAsBytes(b -> b.bucket(WEED.bucket()).key(key)).asString(StandardCharsets.UTF_8);
  }

  private static List<String> list(S3Client client, String prefix) {
    return client.listObjectsV2Paginator(b -> b.bucket(WEED.bucket()).prefix(prefix)).contents().stream()
        .map(S3Object::key).toList();
  }

  private static boolean exists(String key) {
    try {
      admin.headObject(b -> b.bucket(WEED.bucket()).key(key));
      return true;
    } catch (NoSuchKeyException e) {
      return false;
    } catch (S3Exception e) {
      if (e.statusCode() == 404) {
        return false;
      }
      throw e;
    }
  }

  private static void assertAccessDenied(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class, e -> {
      assertThat(e.statusCode()).as("HTTP status of %s", e.getMessage()).isEqualTo(403);
      assertThat(e.awsErrorDetails().errorCode()).isEqualTo("AccessDenied");
    });
  }

  /** Refused by authentication (bad or expired token), whatever code the store picks for it. */
  private static void assertRefused(Runnable call) {
    assertThatThrownBy(call::run).isInstanceOfSatisfying(S3Exception.class,
        e -> assertThat(e.statusCode()).as("HTTP status of %s", e.getMessage()).isIn(400, 403));
  }
}
