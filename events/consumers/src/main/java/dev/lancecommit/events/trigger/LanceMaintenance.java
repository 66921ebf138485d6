package dev.lancecommit.events.trigger;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Manifest;
import java.io.ByteArrayOutputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.apache.arrow.c.ArrowArrayStream;
import org.apache.arrow.c.Data;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.index.Index;
import org.lance.index.IndexOptions;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.roaringbitmap.RoaringBitmap;

/**
 * The data work of maintenance, done with stock Lance (lance-core), never committing: Lance writes data and index
 * files, and the caller commits the resulting transaction through the coordinator.
 *
 * <ul>
 *   <li>{@link #compact}: scans the chosen fragments of the planned version (deleted rows drop out) and writes their
 *       rows as new fragment(s) with {@code Fragment.write()}.
 *   <li>{@link #rebuildIndex}: builds a B-tree index over the given fragments as an uncommitted segment ({@code
 *       createIndex} with fragment ids returns metadata without committing), merges its partial files ({@code
 *       mergeIndexMetadata}, which does not commit either) and returns the metadata for a CreateIndex transaction.
 * </ul>
 *
 * <p>This is the only class of the trigger that touches lance-core (an optional dependency of this module). Owns an
 * Arrow allocator; close it when done. Not thread-safe.
 */
public final class LanceMaintenance implements MaintenanceWorker {
  private final Map<String, String> storageOptions;
  private final BufferAllocator allocator = new RootAllocator();

  public LanceMaintenance(Map<String, String> storageOptions) {
    this.storageOptions = Map.copyOf(storageOptions);
  }

  /**
   * Writes the live rows of {@code plan}'s fragments, as of {@code version}, as new uncommitted fragments of the
   * table (ids 0) and returns them as protobuf messages.
   *
   * @throws IllegalStateException if Lance wrote a different number of rows than the plan expects
   */
  @Override
  public List<DataFragment> compact(String location, long version, CompactionPlan plan, Optional<String> fileVersion) {
    List<Integer> ids = plan.fragmentIds().stream().map(Long::intValue).toList();
    List<FragmentMetadata> written;
    try (Dataset ds = open(location, version);
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().fragmentIds(ids).batchSize(8192).build())) {
      written = write(location, scanner.scanBatches(), fileVersion);
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("could not compact " + location + ": " + e.getMessage(), e);
    }
    long rows = written.stream().mapToLong(FragmentMetadata::getPhysicalRows).sum();
    if (rows != plan.liveRows()) {
      throw new IllegalStateException("compaction of " + location + " fragments " + plan.fragmentIds() + " wrote "
          + rows + " rows, expected " + plan.liveRows() + "; not committing");
    }
    List<DataFragment> out = new ArrayList<>();
    for (FragmentMetadata fragment : written) {
      out.add(fragment(fragment));
    }
    return out;
  }

  /**
   * Builds a B-tree index named {@code plan.name()} over {@code fragmentIds} of {@code version} without committing,
   * and returns its metadata.
   *
   * @throws UnsupportedOperationException if the index is not a single-column B-tree on a top-level field
   */
  @Override
  public IndexMetadata rebuildIndex(String location, long version, Manifest manifest, IndexRefreshPlan plan,
      List<Long> fragmentIds) {
    if (!plan.rebuildable()) {
      throw new UnsupportedOperationException("index '" + plan.name() + "' (" + plan.detailsType()
          + ") cannot be rebuilt by the trigger consumer");
    }
    String column = topLevelColumn(manifest, plan.fieldIds().get(0));
    String uuid = UUID.randomUUID().toString();
    List<Integer> ids = fragmentIds.stream().map(Long::intValue).toList();
    try (Dataset ds = open(location, version)) {
      IndexParams params = IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree")).build();
      Index built = ds.createIndex(IndexOptions.builder(List.of(column), IndexType.BTREE, params)
          .withIndexName(plan.name())
          .replace(true)
          .withFragmentIds(ids)
          .withIndexUUID(uuid)
          .build());
      ds.mergeIndexMetadata(uuid, IndexType.BTREE, Optional.empty());
      return indexMetadata(built, version, fragmentIds);
    }
  }

  /** Streams {@code reader} into new fragments; the exported stream owns the reader, and Lance releases both. */
  private List<FragmentMetadata> write(String location, ArrowReader reader, Optional<String> fileVersion)
      throws IOException {
    ArrowArrayStream stream = ArrowArrayStream.allocateNew(allocator);
    try {
      Data.exportArrayStream(allocator, reader, stream);
    } catch (RuntimeException e) {
      stream.close();
      reader.close();
      throw e;
    }
    try {
      var builder = Fragment.write()
          .datasetUri(location)
          .allocator(allocator)
          .data(stream)
          .storageOptions(storageOptions)
          .maxRowsPerFile(Integer.MAX_VALUE);
      fileVersion.ifPresent(builder::dataStorageVersion);
      return builder.execute();
    } finally {
      // Lance moved the stream's content out (and released the reader); what is left is the C struct itself
      stream.close();
    }
  }

  private Dataset open(String location, long version) {
    return Dataset.open(allocator, location,
        new ReadOptions.Builder().setStorageOptions(storageOptions).setVersion(version).build());
  }

  private static String topLevelColumn(Manifest manifest, int fieldId) {
    for (Field field : manifest.getFieldsList()) {
      if (field.getId() == fieldId) {
        if (field.getParentId() != -1) {
          throw new UnsupportedOperationException("field " + fieldId + " (" + field.getName()
              + ") is nested; the trigger consumer only rebuilds indexes on top-level columns");
        }
        return field.getName();
      }
    }
    throw new IllegalStateException("the schema has no field " + fieldId);
  }

  /** A fragment Lance wrote but did not commit, as the protobuf a transaction carries. */
  static DataFragment fragment(FragmentMetadata fragment) {
    if (fragment.getRowIdMeta() != null || fragment.getCreatedAtVersionMeta() != null
        || fragment.getLastUpdatedAtVersionMeta() != null) {
      throw new IllegalStateException("Lance wrote fragment " + fragment.getId()
          + " with row id or version metadata; the trigger consumer does not handle stable row ids");
    }
    DataFragment.Builder b = DataFragment.newBuilder()
        .setId(Integer.toUnsignedLong(fragment.getId()))
        .setPhysicalRows(fragment.getPhysicalRows());
    for (org.lance.fragment.DataFile file : fragment.getFiles()) {
      DataFile.Builder f = DataFile.newBuilder()
          .setPath(file.getPath())
          .setFileMajorVersion(file.getFileMajorVersion())
          .setFileMinorVersion(file.getFileMinorVersion());
      for (int field : file.getFields()) {
        f.addFields(field);
      }
      if (file.getColumnIndices() != null) {
        for (int column : file.getColumnIndices()) {
          f.addColumnIndices(column);
        }
      }
      if (file.getFileSizeBytes() != null) {
        f.setFileSizeBytes(file.getFileSizeBytes());
      }
      file.getBaseId().ifPresent(f::setBaseId);
      b.addFiles(f);
    }
    if (fragment.getDeletionFile() != null) {
      throw new IllegalStateException("Lance wrote fragment " + fragment.getId() + " with a deletion file");
    }
    return b.build();
  }

  /** An uncommitted index segment as the protobuf a CreateIndex transaction carries. */
  static IndexMetadata indexMetadata(Index index, long version, List<Long> fragmentIds) {
    IndexMetadata.Builder b = IndexMetadata.newBuilder()
        .setUuid(dev.lancecommit.format.pb.UUID.newBuilder().setUuid(uuidBytes(index.uuid())))
        .addAllFields(index.fields())
        .setName(index.name())
        .setDatasetVersion(version)
        .setIndexVersion(index.indexVersion());
    RoaringBitmap covered = new RoaringBitmap();
    List<Integer> fragments = index.fragments().orElse(fragmentIds.stream().map(Long::intValue).toList());
    fragments.forEach(covered::add);
    b.setFragmentBitmap(portable(covered));
    byte[] details = index.indexDetails()
        .orElseThrow(() -> new IllegalStateException("Lance returned index " + index.uuid() + " without details"));
    try {
      b.setIndexDetails(Any.parseFrom(details));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("index details of " + index.uuid() + " are not a protobuf Any", e);
    }
    index.createdAt().ifPresent(at -> b.setCreatedAt(at.toEpochMilli()));
    index.baseId().ifPresent(b::setBaseId);
    return b.build();
  }

  private static ByteString uuidBytes(UUID uuid) {
    ByteBuffer buffer = ByteBuffer.allocate(16);
    buffer.putLong(uuid.getMostSignificantBits()).putLong(uuid.getLeastSignificantBits());
    return ByteString.copyFrom(buffer.array());
  }

  private static ByteString portable(RoaringBitmap bitmap) {
    RoaringBitmap copy = bitmap.clone();
    copy.removeRunCompression(); // older Rust readers take array and bitmap containers only
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    try (DataOutputStream data = new DataOutputStream(out)) {
      copy.serialize(data);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return ByteString.copyFrom(out.toByteArray());
  }

  @Override
  public void close() {
    allocator.close();
  }
}
