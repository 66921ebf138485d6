package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.SeaweedFsFixture;
import dev.lancecommit.testing.lance.LanceTables;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.lance.FragmentMetadata;
import software.amazon.awssdk.services.s3.S3Client;
import software.amazon.awssdk.services.s3.model.S3Object;

/**
 * Stock lance-core 7.0.0 with vended storage options on a store that enforces session policies: a writer's
 * {@code Fragment.write} lands data files, its own commit (which writes a final manifest) is refused, and the
 * coordinator's credentials can then commit the writer's fragments.
 */
class LanceVendedCredentialsSeaweedFsTest {
  @RegisterExtension
  static final SeaweedFsFixture WEED = new SeaweedFsFixture();

  private static final String TABLE_PREFIX = "wh/lance/t.lance";

  private static StsCredentialVendor vendor;
  private static S3Client admin;
  private static String table;

  @BeforeAll
  static void setUp() {
    if (!WEED.isRunning()) {
      return; // no weed binary: the fixture skips every test
    }
    vendor = new StsCredentialVendor(StsSettings.of(WEED.endpoint(), SeaweedFsFixture.REGION,
        SeaweedFsFixture.ROLE_ARN, WEED.adminCredentials(), WEED.endpoint()).withSessionDuration(Duration.ofSeconds(900)));
    admin = WEED.adminClient();
    table = WEED.uri(TABLE_PREFIX);
    try (LanceTables coordinator = LanceTables.at(table, coordinatorOptions())) {
      assertThat(coordinator.createWithLance(0, 10)).isEqualTo(1);
    }
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
  void writerWritesFragmentsButOnlyTheCoordinatorCommitsThem() {
    Map<String, String> writerOptions = vendor.vend("writer-1", table, AccessMode.READ_WRITE).storageOptions();
    List<String> dataBefore = keys(TABLE_PREFIX + "/data/");

    List<FragmentMetadata> fragments;
    try (LanceTables writer = LanceTables.at(table, writerOptions)) {
      fragments = writer.writeRows(100, 50);
      assertThat(writer.latestVersion()).isEqualTo(1);
      assertThatThrownBy(() -> writer.appendWithLance(200, 5))
          .as("stock Lance commit writes a final manifest, which the session policy denies")
          .hasStackTraceContaining("AccessDenied").hasStackTraceContaining(".manifest");
    }
    assertThat(fragments).isNotEmpty();
    assertThat(keys(TABLE_PREFIX + "/data/")).hasSizeGreaterThan(dataBefore.size());
    assertThat(keys(TABLE_PREFIX + "/_versions/")).filteredOn(k -> k.endsWith(".manifest")).hasSize(1);

    try (LanceTables coordinator = LanceTables.at(table, coordinatorOptions())) {
      long version = coordinator.commitAppendWithLance(1, fragments);
      assertThat(coordinator.countRows(version)).isEqualTo(60);
      assertThat(coordinator.readIds(version)).contains(100L, 149L);
    }
  }

  @Test
  void readerOpensTheTableButCannotWriteDataFiles() {
    Map<String, String> readerOptions = vendor.vend("reader-1", table, AccessMode.READ).storageOptions();
    List<String> dataBefore = keys(TABLE_PREFIX + "/data/");

    try (LanceTables reader = LanceTables.at(table, readerOptions)) {
      assertThat(reader.countRows(1)).isEqualTo(10);
      assertThatThrownBy(() -> reader.writeRows(300, 5)).hasStackTraceContaining("AccessDenied");
    }
    assertThat(keys(TABLE_PREFIX + "/data/")).containsExactlyInAnyOrderElementsOf(dataBefore);
  }

  private static Map<String, String> coordinatorOptions() {
    return Map.of(
        "aws_access_key_id", SeaweedFsFixture.ADMIN_ACCESS_KEY,
        "aws_secret_access_key", SeaweedFsFixture.ADMIN_SECRET_KEY,
        "aws_region", SeaweedFsFixture.REGION,
        "aws_endpoint", WEED.endpoint(),
        "allow_http", "true");
  }

  private static List<String> keys(String prefix) {
    return admin.listObjectsV2Paginator(b -> b.bucket(WEED.bucket()).prefix(prefix)).contents().stream()
        .map(S3Object::key).toList();
  }
}
