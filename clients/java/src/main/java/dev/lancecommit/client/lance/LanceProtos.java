package dev.lancecommit.client.lance;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Encoding;
import dev.lancecommit.format.pb.ExternalFile;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.FragmentMetadata;
import org.lance.compaction.RewriteResult;
import org.lance.fragment.DeletionFileType;
import org.lance.fragment.RowIdMeta;
import org.lance.fragment.VersionMeta;
import org.lance.index.Index;

/**
 * Converts lance-core 7.0.0 Java objects into our Lance protobuf messages, the way stock Lance itself encodes
 * them in {@code _transactions/*.txn} and manifests (verified byte for byte by {@code LanceProtosTest}). Stateless.
 */
public final class LanceProtos {

  private static final ObjectMapper JSON = new ObjectMapper();

  private LanceProtos() {}

  public static List<DataFragment> fragments(List<FragmentMetadata> fragments) {
    List<DataFragment> out = new ArrayList<>(fragments.size());
    for (FragmentMetadata fragment : fragments) {
      out.add(fragment(fragment));
    }
    return out;
  }

  public static DataFragment fragment(FragmentMetadata fragment) {
    DataFragment.Builder b = DataFragment.newBuilder()
        .setId(Integer.toUnsignedLong(fragment.getId()))
        .setPhysicalRows(fragment.getPhysicalRows());
    for (org.lance.fragment.DataFile file : fragment.getFiles()) {
      b.addFiles(dataFile(file));
    }
    if (fragment.getDeletionFile() != null) {
      b.setDeletionFile(deletionFile(fragment.getDeletionFile()));
    }
    RowIdMeta rowIds = fragment.getRowIdMeta();
    if (rowIds != null) {
      SequenceRef ref = SequenceRef.parse(rowIds.getMetadata());
      if (ref.inline() != null) {
        b.setInlineRowIds(ref.inline());
      } else {
        b.setExternalRowIds(ref.external());
      }
    }
    VersionMeta lastUpdated = fragment.getLastUpdatedAtVersionMeta();
    if (lastUpdated != null) {
      SequenceRef ref = SequenceRef.parse(lastUpdated.getMetadata());
      if (ref.inline() != null) {
        b.setInlineLastUpdatedAtVersions(ref.inline());
      } else {
        b.setExternalLastUpdatedAtVersions(ref.external());
      }
    }
    VersionMeta created = fragment.getCreatedAtVersionMeta();
    if (created != null) {
      SequenceRef ref = SequenceRef.parse(created.getMetadata());
      if (ref.inline() != null) {
        b.setInlineCreatedAtVersions(ref.inline());
      } else {
        b.setExternalCreatedAtVersions(ref.external());
      }
    }
    return b.build();
  }

  public static DataFile dataFile(org.lance.fragment.DataFile file) {
    DataFile.Builder b = DataFile.newBuilder()
        .setPath(file.getPath())
        .setFileMajorVersion(file.getFileMajorVersion())
        .setFileMinorVersion(file.getFileMinorVersion());
    for (int field : file.getFields()) {
      b.addFields(field);
    }
    if (file.getColumnIndices() != null) {
      for (int column : file.getColumnIndices()) {
        b.addColumnIndices(column);
      }
    }
    if (file.getFileSizeBytes() != null) {
      b.setFileSizeBytes(file.getFileSizeBytes());
    }
    file.getBaseId().ifPresent(b::setBaseId);
    return b.build();
  }

  public static DeletionFile deletionFile(org.lance.fragment.DeletionFile file) {
    DeletionFile.Builder b = DeletionFile.newBuilder()
        .setFileType(file.getFileType() == DeletionFileType.BITMAP
            ? DeletionFile.DeletionFileType.BITMAP
            : DeletionFile.DeletionFileType.ARROW_ARRAY)
        .setReadVersion(file.getReadVersion())
        // Lance's id is a u64; Java carries the same 64 bits in a signed long.
        .setId(file.getId());
    if (file.getNumDeletedRows() != null) {
      b.setNumDeletedRows(file.getNumDeletedRows());
    }
    file.getBaseId().ifPresent(b::setBaseId);
    return b.build();
  }

  /**
   * One compaction task's result as a Rewrite group: the fragments it read (as committed, with their ids) become the
   * fragments it wrote (id 0: the commit assigns ids).
   */
  public static Transaction.RewriteGroup rewriteGroup(RewriteResult result) {
    return Transaction.RewriteGroup.newBuilder()
        .addAllOldFragments(fragments(result.getOriginalFragments()))
        .addAllNewFragments(fragments(result.getNewFragments()))
        .build();
  }

  /**
   * An index segment Lance built without committing it (e.g. {@code Dataset.createIndex} with fragment ids and an
   * index uuid) as the {@link IndexMetadata} a CreateIndex carries. Lance 7's Java {@link Index} does not expose the
   * segment's file list, so {@code files} stays empty (readers do not need it).
   *
   * @throws IllegalArgumentException when the index has no details or no fragment list
   */
  public static IndexMetadata index(Index index) {
    IndexMetadata.Builder b = IndexMetadata.newBuilder()
        .setUuid(TransactionFactory.uuid(index.uuid()))
        .addAllFields(index.fields())
        .setName(index.name())
        .setDatasetVersion(index.datasetVersion())
        .setIndexVersion(index.indexVersion());
    List<Integer> covered = index.fragments().orElseThrow(() -> new IllegalArgumentException(
        "index " + index.name() + " (" + index.uuid() + ") does not say which fragments it covers"));
    b.setFragmentBitmap(TransactionFactory.fragmentBitmap(covered));
    byte[] details = index.indexDetails().orElseThrow(() -> new IllegalArgumentException(
        "index " + index.name() + " (" + index.uuid() + ") has no index details"));
    try {
      b.setIndexDetails(Any.parseFrom(details));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("index details of " + index.uuid() + " are not a protobuf Any", e);
    }
    index.createdAt().ifPresent(at -> b.setCreatedAt(at.toEpochMilli()));
    index.baseId().ifPresent(b::setBaseId);
    return b.build();
  }

  /**
   * The flattened Lance schema of an Arrow schema as a new table gets it: ids assigned depth-first in pre-order
   * from 0, parent before children, {@code parent_id = -1} at top level. Schema-level metadata is not part of
   * the field list (stock Lance leaves {@code Overwrite.schema_metadata} empty).
   */
  public static List<Field> schema(Schema schema) {
    List<Field> out = new ArrayList<>();
    int[] nextId = {0};
    for (org.apache.arrow.vector.types.pojo.Field field : schema.getFields()) {
      flatten(field, -1, nextId, out);
    }
    return out;
  }

  /**
   * The Arrow schema's own key/value metadata, as a manifest's {@code schema_metadata} holds it (UTF-8 values). Lance
   * keeps it in the manifest but not in the Overwrite of its transaction file.
   */
  public static Map<String, ByteString> schemaMetadata(Schema schema) {
    Map<String, ByteString> out = new java.util.TreeMap<>();
    if (schema.getCustomMetadata() != null) {
      schema.getCustomMetadata().forEach((k, v) -> out.put(k, ByteString.copyFrom(v, StandardCharsets.UTF_8)));
    }
    return out;
  }

  private static void flatten(org.apache.arrow.vector.types.pojo.Field field, int parentId, int[] nextId,
      List<Field> out) {
    int id = nextId[0]++;
    ArrowType type = field.getType();
    Field.Builder b = Field.newBuilder()
        .setName(field.getName())
        .setId(id)
        .setParentId(parentId)
        .setLogicalType(logicalType(field))
        .setNullable(field.isNullable());
    Encoding encoding = encoding(type);
    if (encoding != null) {
      b.setEncoding(encoding);
    }
    if (field.getMetadata() != null) {
      for (Map.Entry<String, String> e : field.getMetadata().entrySet()) {
        b.putMetadata(e.getKey(), ByteString.copyFrom(e.getValue(), StandardCharsets.UTF_8));
      }
    }
    out.add(b.build());
    // Fixed-size lists are leaves in Lance: their item type is folded into the logical type string.
    if (type instanceof ArrowType.Struct || type instanceof ArrowType.List || type instanceof ArrowType.LargeList) {
      for (org.apache.arrow.vector.types.pojo.Field child : field.getChildren()) {
        flatten(child, id, nextId, out);
      }
    }
  }

  /** Lance's logical type string, e.g. {@code int64}, {@code string}, {@code fixed_size_list:float:128}. */
  public static String logicalType(org.apache.arrow.vector.types.pojo.Field field) {
    ArrowType type = field.getType();
    if (type instanceof ArrowType.FixedSizeList fsl) {
      return "fixed_size_list:" + logicalType(field.getChildren().get(0)) + ":" + fsl.getListSize();
    }
    if (type instanceof ArrowType.List) {
      return isStruct(field.getChildren().get(0)) ? "list.struct" : "list";
    }
    if (type instanceof ArrowType.LargeList) {
      return isStruct(field.getChildren().get(0)) ? "large_list.struct" : "large_list";
    }
    return logicalType(type);
  }

  private static boolean isStruct(org.apache.arrow.vector.types.pojo.Field field) {
    return field.getType() instanceof ArrowType.Struct;
  }

  private static String logicalType(ArrowType type) {
    if (type instanceof ArrowType.Null) {
      return "null";
    }
    if (type instanceof ArrowType.Bool) {
      return "bool";
    }
    if (type instanceof ArrowType.Int i) {
      return (i.getIsSigned() ? "int" : "uint") + i.getBitWidth();
    }
    if (type instanceof ArrowType.FloatingPoint fp) {
      return switch (fp.getPrecision()) {
        case HALF -> "halffloat";
        case SINGLE -> "float";
        case DOUBLE -> "double";
      };
    }
    if (type instanceof ArrowType.Utf8) {
      return "string";
    }
    if (type instanceof ArrowType.LargeUtf8) {
      return "large_string";
    }
    if (type instanceof ArrowType.Binary) {
      return "binary";
    }
    if (type instanceof ArrowType.LargeBinary) {
      return "large_binary";
    }
    if (type instanceof ArrowType.FixedSizeBinary fsb) {
      return "fixed_size_binary:" + fsb.getByteWidth();
    }
    if (type instanceof ArrowType.Struct) {
      return "struct";
    }
    if (type instanceof ArrowType.Date d) {
      return d.getUnit() == org.apache.arrow.vector.types.DateUnit.DAY ? "date32:day" : "date64:ms";
    }
    if (type instanceof ArrowType.Timestamp ts) {
      return "timestamp:" + unit(ts.getUnit()) + ":" + (ts.getTimezone() == null ? "-" : ts.getTimezone());
    }
    if (type instanceof ArrowType.Time t) {
      return "time" + t.getBitWidth() + ":" + unit(t.getUnit());
    }
    if (type instanceof ArrowType.Duration d) {
      return "duration:" + unit(d.getUnit());
    }
    if (type instanceof ArrowType.Decimal d) {
      return "decimal:" + d.getBitWidth() + ":" + d.getPrecision() + ":" + d.getScale();
    }
    throw new IllegalArgumentException("no Lance logical type known for Arrow type " + type);
  }

  private static String unit(org.apache.arrow.vector.types.TimeUnit unit) {
    return switch (unit) {
      case SECOND -> "s";
      case MILLISECOND -> "ms";
      case MICROSECOND -> "us";
      case NANOSECOND -> "ns";
    };
  }

  /** The legacy column encoding Lance still records: plain for fixed-width and list offsets, var-binary for bytes. */
  private static Encoding encoding(ArrowType type) {
    if (type instanceof ArrowType.Utf8 || type instanceof ArrowType.LargeUtf8 || type instanceof ArrowType.Binary
        || type instanceof ArrowType.LargeBinary) {
      return Encoding.VAR_BINARY;
    }
    if (type instanceof ArrowType.Struct || type instanceof ArrowType.Null) {
      return null;
    }
    return Encoding.PLAIN;
  }

  /**
   * lance-core hands row-id and version sequences to Java as the serde JSON of the Rust enum: {@code {"Inline":[bytes]}}
   * (row ids) or {@code {"inline":[bytes]}} (versions), or an {@code External} file reference.
   */
  private record SequenceRef(ByteString inline, ExternalFile external) {

    static SequenceRef parse(String json) {
      JsonNode root;
      try {
        root = JSON.readTree(json);
      } catch (IOException e) {
        throw new UncheckedIOException("unreadable Lance sequence metadata: " + json, e);
      }
      Iterator<Map.Entry<String, JsonNode>> it = root.fields();
      if (!it.hasNext()) {
        throw new IllegalArgumentException("empty Lance sequence metadata: " + json);
      }
      Map.Entry<String, JsonNode> variant = it.next();
      String kind = variant.getKey().toLowerCase(Locale.ROOT);
      JsonNode value = variant.getValue();
      if (kind.equals("inline")) {
        byte[] bytes = new byte[value.size()];
        for (int i = 0; i < bytes.length; i++) {
          bytes[i] = (byte) value.get(i).asInt();
        }
        return new SequenceRef(ByteString.copyFrom(bytes), null);
      }
      if (kind.equals("external")) {
        return new SequenceRef(null, ExternalFile.newBuilder()
            .setPath(value.path("path").asText())
            .setOffset(value.path("offset").asLong())
            .setSize(value.path("size").asLong())
            .build());
      }
      throw new IllegalArgumentException("unknown Lance sequence metadata variant: " + json);
    }
  }
}
