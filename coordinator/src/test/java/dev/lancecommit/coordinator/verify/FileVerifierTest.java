package dev.lancecommit.coordinator.verify;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.format.RowIds;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.UUID;
import dev.lancecommit.testing.FaultInjectingObjectStore;
import dev.lancecommit.testing.FaultInjectingObjectStore.Call;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Where the files of a version are looked for (the table, base paths with and without their dataset-root layout,
 * external sequences), what presence and content checks report, and how many store requests they take.
 */
class FileVerifierTest {
  @TempDir Path root;
  private FaultInjectingObjectStore store;
  private StorageLocation table;
  private StorageLocation base;
  private ExecutorService pool;
  private FileVerifier verifier;

  @BeforeEach
  void setUp() {
    store = new FaultInjectingObjectStore(new LocalObjectStore(root));
    table = new StorageLocation(store, "wh/t.lance");
    base = new StorageLocation(store, "elsewhere/shared");
    pool = Executors.newFixedThreadPool(4);
    verifier = new FileVerifier(uri -> {
      if (uri.equals(base.uri())) {
        return base;
      }
      throw new IllegalArgumentException("unknown location " + uri);
    }, pool, 4);
  }

  @AfterEach
  void tearDown() throws Exception {
    pool.shutdownNow();
    pool.awaitTermination(5, TimeUnit.SECONDS);
  }

  @Test
  void filesUnderBasePathsAreLookedForWhereTheBaseSays() {
    store.put(base.key("data/in-root.lance"), new byte[10]);
    store.put(base.key("flat.lance"), new byte[10]);
    Manifest manifest = Manifest.newBuilder()
        .addBasePaths(BasePath.newBuilder().setId(1).setPath(base.uri()).setIsDatasetRoot(true))
        .addBasePaths(BasePath.newBuilder().setId(2).setPath(base.uri()).setIsDatasetRoot(false))
        .addFragments(fragment(0, file("in-root.lance", 10).toBuilder().setBaseId(1).build()))
        .addFragments(fragment(1, file("flat.lance", 10).toBuilder().setBaseId(2).build()))
        .addFragments(fragment(2, file("lost.lance", 10).toBuilder().setBaseId(7).build()))
        .build();
    FileVerifier.Report report = verifier.checkVersion(table, new TableState(manifest, List.of()), false);
    assertThat(report.filesChecked()).isEqualTo(3);
    assertThat(report.problems()).singleElement().satisfies(p -> {
      assertThat(p.what()).isEqualTo("data file lost.lance of fragment 2");
      assertThat(p.reason()).contains("base path 7, which the version does not have");
    });
  }

  @Test
  void externalSequencesMustHoldTheirSliceAndCoverEveryRow() {
    ByteString sequence = RowIds.encodeFresh(100, 5);
    byte[] file = new byte[3 + sequence.size()];
    sequence.copyTo(file, 3);
    store.put(table.key("_rowids/seq.bin"), file);
    store.put(table.key("data/a.lance"), new byte[10]);
    DataFragment good = fragment(0, file("a.lance", 10)).toBuilder().setPhysicalRows(5)
        .setExternalRowIds(ExternalFile.newBuilder().setPath("_rowids/seq.bin").setOffset(3).setSize(sequence.size()))
        .build();
    assertThat(presence(good)).isEmpty();
    assertThat(content(good)).isEmpty();
    DataFragment moreRows = good.toBuilder().setPhysicalRows(6).build();
    assertThat(content(moreRows)).singleElement().satisfies(p -> assertThat(p.reason())
        .contains("covers 5 rows, but the fragment's physical_rows is 6"));
    DataFragment pastTheEnd = good.toBuilder().setExternalRowIds(good.getExternalRowIds().toBuilder().setOffset(10))
        .build();
    assertThat(presence(pastTheEnd)).singleElement().satisfies(p -> assertThat(p.reason())
        .contains("fewer than the slice"));
  }

  @Test
  void anIndexThatListsNoFilesMustHaveSomeInItsDirectory() {
    IndexMetadata index = IndexMetadata.newBuilder().setName("id_idx").setUuid(uuid(7)).addFields(0).build();
    IndexMetadata system = IndexMetadata.newBuilder().setName("__lance_mem_wal").setUuid(uuid(8)).build();
    TableState version = new TableState(Manifest.getDefaultInstance(), List.of(index, system));
    assertThat(verifier.checkVersion(table, version, false).problems()).singleElement()
        .satisfies(p -> assertThat(p.what()).isEqualTo("directory of index 'id_idx'"));
    store.put(table.key("_indices/" + new java.util.UUID(7, 7) + "/page_lookup.lance"), new byte[1]);
    assertThat(verifier.checkVersion(table, version, false).ok()).isTrue();
  }

  @Test
  void manyFilesInOneDirectoryAreCheckedWithOneListing() {
    List<DataFragment> fragments = new ArrayList<>();
    for (int i = 0; i < 40; i++) {
      store.put(table.key("data/f" + i + ".lance"), new byte[i + 1]);
      fragments.add(fragment(i, file("f" + i + ".lance", i + 1)));
    }
    fragments.set(17, fragment(17, file("f17.lance", 99)));
    TableState version = new TableState(Manifest.newBuilder().addAllFragments(fragments).build(), List.of());
    int heads = store.calls(Call.HEAD);
    int lists = store.calls(Call.LIST);
    FileVerifier.Report report = verifier.checkVersion(table, version, false);
    assertThat(report.problems()).singleElement().satisfies(p -> {
      assertThat(p.uri()).isEqualTo(table.uri("data/f17.lance"));
      assertThat(p.reason()).isEqualTo("has 18 bytes, but the version states 99");
    });
    assertThat(store.calls(Call.HEAD) - heads).isZero();
    assertThat(store.calls(Call.LIST) - lists).isEqualTo(1);
  }

  @Test
  void onlyWhatTheNextVersionAddsIsChecked() {
    TableState previous = new TableState(Manifest.newBuilder().addFragments(fragment(0, file("old.lance", 10)))
        .build(), List.of());
    TableState next = new TableState(previous.manifest().toBuilder().addFragments(fragment(1, file("new.lance", 10)))
        .build(), List.of());
    // neither file exists: only the new one is reported
    assertThat(verifier.checkAdded(table, previous, next)).singleElement()
        .satisfies(p -> assertThat(p.what()).isEqualTo("data file new.lance of fragment 1"));
    // a carried file whose fragment now claims another row count is looked at again
    TableState changedRows = new TableState(Manifest.newBuilder().addFragments(fragment(0, file("old.lance", 10))
        .toBuilder().setPhysicalRows(11)).build(), List.of());
    assertThat(verifier.checkAdded(table, previous, changedRows)).singleElement()
        .satisfies(p -> assertThat(p.what()).isEqualTo("data file old.lance of fragment 0"));
  }

  private List<FileProblem> presence(DataFragment fragment) {
    return verifier.checkVersion(table, new TableState(Manifest.newBuilder().addFragments(fragment).build(),
        List.of()), false).problems();
  }

  private List<FileProblem> content(DataFragment fragment) {
    return verifier.checkAdded(table, null, new TableState(Manifest.newBuilder().addFragments(fragment).build(),
        List.of()));
  }

  private static DataFragment fragment(long id, DataFile file) {
    return DataFragment.newBuilder().setId(id).setPhysicalRows(1).addFiles(file).build();
  }

  /** A legacy (0.1) data file: its content is not opened, so test bytes will do. */
  private static DataFile file(String path, long size) {
    return DataFile.newBuilder().setPath(path).addFields(0).setFileSizeBytes(size).build();
  }

  private static UUID uuid(long n) {
    return UUID.newBuilder().setUuid(ByteString.copyFrom(ByteBuffer.allocate(16).putLong(n).putLong(n).flip()))
        .build();
  }
}
