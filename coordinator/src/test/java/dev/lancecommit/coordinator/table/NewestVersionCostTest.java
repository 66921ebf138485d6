package dev.lancecommit.coordinator.table;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.ObjectStore;
import dev.lancecommit.coordinator.storage.S3ObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.testing.ForwardingObjectStore;
import dev.lancecommit.testing.S3ProxyFixture;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The newest version on S3 (what stock clients ask before every managed-versioning commit, ListTableVersions with
 * limit 1) costs one short listing whether the table has 10 versions or 1,000, when the table is named by the V2
 * scheme; a V1 table is listed whole, and the answer is right either way.
 */
class NewestVersionCostTest {
  @RegisterExtension
  static final S3ProxyFixture S3 = new S3ProxyFixture();

  private static S3ObjectStore s3;

  @BeforeAll
  static void open() {
    s3 = S3ObjectStore.create(S3.s3Config(), S3.bucket());
  }

  @AfterAll
  static void close() {
    s3.close();
  }

  @Test
  void aV2TableIsFoundByItsFirstKeysWhateverItsLength() {
    long small = listedKeys(table(ManifestNaming.Scheme.V2, 10), 10);
    long large = listedKeys(table(ManifestNaming.Scheme.V2, 1000), 1000);

    assertThat(small).isEqualTo(12); // the whole directory: fewer keys than one short listing reads
    assertThat(large).as("keys listed of 1,002").isLessThanOrEqualTo(50);
  }

  @Test
  void aV1TableIsListedWhole() {
    assertThat(listedKeys(table(ManifestNaming.Scheme.V1, 120), 120)).isGreaterThanOrEqualTo(120);
  }

  /** Versions 1..{@code versions}, and staged manifests of the next two versions (which sort first under V2). */
  private static String table(ManifestNaming.Scheme scheme, int versions) {
    String root = "newest-" + UUID.randomUUID();
    for (int v = 1; v <= versions; v++) {
      s3.put(root + "/_versions/" + ManifestNaming.fileName(scheme, v), new byte[v % 5 + 1]);
    }
    for (int v = versions + 1; v <= versions + 2; v++) {
      s3.put(root + "/_versions/" + ManifestNaming.fileName(scheme, v) + "-" + UUID.randomUUID(), new byte[9]);
    }
    return root;
  }

  private static long listedKeys(String root, long newest) {
    AtomicLong listed = new AtomicLong();
    ObjectStore counting = new ForwardingObjectStore(s3) {
      @Override
      public List<ObjectInfo> list(String prefix) {
        return counted(super.list(prefix));
      }

      @Override
      public List<ObjectInfo> listFirst(String prefix, int maxKeys) {
        return counted(super.listFirst(prefix, maxKeys));
      }

      private List<ObjectInfo> counted(List<ObjectInfo> keys) {
        listed.addAndGet(keys.size());
        return keys;
      }
    };
    VersionFile found = TableOperations.of(new StorageLocation(counting, root)).latestVersionFile().orElseThrow();
    assertThat(found.version()).isEqualTo(newest);
    assertThat(found.size()).isEqualTo(newest % 5 + 1);
    return listed.get();
  }
}
