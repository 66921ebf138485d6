package dev.lancecommit.chaos.fuzz;

import com.google.protobuf.ByteString;
import com.google.protobuf.Descriptors;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.IndexFile;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.UUID;
import java.io.ByteArrayOutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.function.UnaryOperator;
import java.util.stream.IntStream;

/**
 * Ways to damage a real Lance transaction: on its bytes (bit flips, overwritten, inserted, deleted and duplicated
 * ranges, truncation, splices with another transaction, declared fields under another wire type, random bytes) and
 * on its fields (every field that names a file or says something about one: paths, sizes, row counts, field ids and
 * column indices, deletion files, index bitmaps, fields and files, fragment ids, read versions and uuids). Each
 * mutation says what it did.
 */
final class Mutations {
  /** A damaged transaction body and what was done to it. */
  record Mutant(byte[] bytes, String description) {}

  private final Random random;

  Mutations(Random random) {
    this.random = random;
  }

  /** One to three mutations of {@code original}; {@code other} is another real transaction to splice with. */
  Mutant mutate(Transaction original, Transaction other, List<String> committedUuids) {
    byte[] bytes = original.toByteArray();
    List<String> done = new ArrayList<>();
    int rounds = 1 + random.nextInt(3);
    for (int i = 0; i < rounds; i++) {
      if (random.nextInt(100) < 55) {
        Transaction parsed = parseOrNull(bytes);
        if (parsed != null) {
          FieldMutation m = fieldMutation(parsed, other, committedUuids);
          bytes = m.txn().toByteArray();
          done.add(m.description());
          continue;
        }
      }
      Mutant m = byteMutation(bytes, other.toByteArray());
      bytes = m.bytes();
      done.add(m.description());
    }
    return new Mutant(bytes, String.join(" + ", done));
  }

  private record FieldMutation(Transaction txn, String description) {}

  private Mutant byteMutation(byte[] in, byte[] other) {
    byte[] bytes = in.length == 0 ? new byte[] {0} : in;
    int n = bytes.length;
    switch (random.nextInt(11)) {
      case 0, 1 -> {
        byte[] out = bytes.clone();
        int flips = 1 + random.nextInt(4);
        for (int i = 0; i < flips; i++) {
          int at = random.nextInt(n);
          out[at] ^= (byte) (1 << random.nextInt(8));
        }
        return new Mutant(out, flips + " bit flips");
      }
      case 2 -> {
        byte[] out = bytes.clone();
        int at = random.nextInt(n);
        out[at] = (byte) random.nextInt(256);
        return new Mutant(out, "byte " + at + " set");
      }
      case 3 -> {
        int at = random.nextInt(n);
        return new Mutant(Arrays.copyOf(bytes, at), "truncated at " + at);
      }
      case 4 -> {
        int at = random.nextInt(n + 1);
        byte[] insert = randomBytes(1 + random.nextInt(16));
        return new Mutant(concat(Arrays.copyOf(bytes, at), insert, Arrays.copyOfRange(bytes, at, n)),
            insert.length + " random bytes inserted at " + at);
      }
      case 5 -> {
        int from = random.nextInt(n);
        int to = Math.min(n, from + 1 + random.nextInt(32));
        return new Mutant(concat(Arrays.copyOf(bytes, from), Arrays.copyOfRange(bytes, to, n)),
            "bytes " + from + ".." + to + " removed");
      }
      case 6 -> {
        int from = random.nextInt(n);
        int to = Math.min(n, from + 1 + random.nextInt(64));
        return new Mutant(concat(Arrays.copyOf(bytes, to), Arrays.copyOfRange(bytes, from, n)),
            "bytes " + from + ".." + to + " duplicated");
      }
      case 7 -> {
        int cut = random.nextInt(n + 1);
        int otherCut = random.nextInt(other.length + 1);
        return new Mutant(concat(Arrays.copyOf(bytes, cut), Arrays.copyOfRange(other, otherCut, other.length)),
            "spliced at " + cut + " with another transaction from " + otherCut);
      }
      case 8 -> {
        byte[] out = bytes.clone();
        int from = random.nextInt(n);
        int to = Math.min(n, from + 1 + random.nextInt(8));
        Arrays.fill(out, from, to, (byte) (random.nextBoolean() ? 0 : 0xFF));
        return new Mutant(out, "bytes " + from + ".." + to + " filled");
      }
      case 9 -> {
        return misencodedField(bytes);
      }
      default -> {
        return new Mutant(randomBytes(random.nextInt(200)), "random bytes");
      }
    }
  }

  /**
   * A field the Transaction declares, appended under another wire type with a well-formed payload: protobuf-java
   * parses it (into unknown fields) while stock Lance's decoder may read it as something else entirely.
   */
  private Mutant misencodedField(byte[] bytes) {
    List<Descriptors.FieldDescriptor> fields = Transaction.getDescriptor().getFields();
    Descriptors.FieldDescriptor field = fields.get(random.nextInt(fields.size()));
    int declared = field.getLiteType().getWireType();
    int[] others = IntStream.of(0, 1, 2, 5).filter(w -> w != declared).toArray();
    int wire = others[random.nextInt(others.length)];
    byte[] payload = switch (wire) {
      case 0 -> new byte[] {(byte) random.nextInt(128)};
      case 1 -> randomBytes(8);
      case 5 -> randomBytes(4);
      default -> concat(new byte[] {3}, randomBytes(3));
    };
    int tag = field.getNumber() << 3 | wire;
    ByteArrayOutputStream out = new ByteArrayOutputStream();
    out.writeBytes(bytes);
    while ((tag & ~0x7F) != 0) {
      out.write((tag & 0x7F) | 0x80);
      tag >>>= 7;
    }
    out.write(tag);
    out.writeBytes(payload);
    return new Mutant(out.toByteArray(), field.getName() + " (field " + field.getNumber() + ") appended with wire type "
        + wire);
  }

  private FieldMutation fieldMutation(Transaction txn, Transaction other, List<String> committedUuids) {
    List<DataFragment> fragments = fragmentsOf(txn);
    List<IndexMetadata> indices = txn.hasCreateIndex() ? txn.getCreateIndex().getNewIndicesList() : List.of();
    int choice = random.nextInt(12);
    if (choice <= 5 && !fragments.isEmpty()) {
      int at = random.nextInt(fragments.size());
      DataFragment fragment = fragments.get(at);
      FragmentChange change = fragmentChange(fragment, fragmentsOf(other));
      return new FieldMutation(withFragment(txn, at, change.fragment()), change.description());
    }
    if (choice <= 7 && !indices.isEmpty()) {
      int at = random.nextInt(indices.size());
      IndexChange change = indexChange(indices.get(at));
      Transaction.Builder b = txn.toBuilder();
      b.getCreateIndexBuilder().setNewIndices(at, change.index());
      return new FieldMutation(b.build(), change.description());
    }
    return switch (random.nextInt(5)) {
      case 0 -> new FieldMutation(txn.toBuilder().setReadVersion(pick(0L, txn.getReadVersion() + 1,
          txn.getReadVersion() + 1000, Long.MAX_VALUE, -1L, Math.max(0, txn.getReadVersion() - 1))).build(),
          "read_version changed");
      case 1 -> committedUuids.isEmpty()
          ? new FieldMutation(txn.toBuilder().setUuid("").build(), "uuid emptied")
          : new FieldMutation(txn.toBuilder().setUuid(committedUuids.get(random.nextInt(committedUuids.size())))
              .build(), "uuid of a committed transaction");
      case 2 -> new FieldMutation(txn.toBuilder().setUuid(flipChar(txn.getUuid())).build(), "uuid char changed");
      case 3 -> new FieldMutation(txn.toBuilder().putTransactionProperties(randomText(8), randomText(16)).build(),
          "transaction property added");
      default -> new FieldMutation(txn.toBuilder().setTag(randomText(random.nextInt(40))).build(), "tag set");
    };
  }

  private record FragmentChange(DataFragment fragment, String description) {}

  private FragmentChange fragmentChange(DataFragment fragment, List<DataFragment> others) {
    DataFragment.Builder b = fragment.toBuilder();
    int files = fragment.getFilesCount();
    int fileAt = files == 0 ? -1 : random.nextInt(files);
    switch (random.nextInt(16)) {
      case 0 -> {
        if (fileAt >= 0) {
          b.setFiles(fileAt, fragment.getFiles(fileAt).toBuilder().setPath(flipChar(fragment.getFiles(fileAt)
              .getPath())));
          return new FragmentChange(b.build(), "a data file path's character changed (issue 14)");
        }
      }
      case 1 -> {
        List<DataFile> foreign = new ArrayList<>();
        others.forEach(o -> foreign.addAll(o.getFilesList()));
        if (fileAt >= 0 && !foreign.isEmpty()) {
          b.setFiles(fileAt, fragment.getFiles(fileAt).toBuilder().setPath(foreign.get(random.nextInt(foreign.size()))
              .getPath()));
          return new FragmentChange(b.build(), "a data file path of another transaction");
        }
      }
      case 2 -> {
        return new FragmentChange(b.setPhysicalRows(pick(fragment.getPhysicalRows() + 1,
            Math.max(0, fragment.getPhysicalRows() - 1), 0L, -1L, fragment.getPhysicalRows() * 2, (1L << 32) + 1))
            .build(), "physical_rows changed");
      }
      case 3 -> {
        return new FragmentChange(b.setId(pick(1L << 32, -1L, 1L, 2L, 1000L, 0L)).build(), "fragment id changed");
      }
      case 4 -> {
        if (fileAt >= 0) {
          DataFile file = fragment.getFiles(fileAt);
          b.setFiles(fileAt, file.toBuilder().setFileSizeBytes(pick(file.getFileSizeBytes() + 1,
              file.getFileSizeBytes() - 1, 0L, -1L)));
          return new FragmentChange(b.build(), "file_size_bytes changed");
        }
      }
      case 5 -> {
        if (fileAt >= 0 && fragment.getFiles(fileAt).getFieldsCount() > 0) {
          DataFile file = fragment.getFiles(fileAt);
          int i = random.nextInt(file.getFieldsCount());
          b.setFiles(fileAt, file.toBuilder().setFields(i, pick(-1, -2, 1 - file.getFields(i), 7, file.getFields(i) + 1,
              Integer.MIN_VALUE)));
          return new FragmentChange(b.build(), "a field id changed");
        }
      }
      case 6 -> {
        if (fileAt >= 0 && fragment.getFiles(fileAt).getColumnIndicesCount() > 0) {
          DataFile file = fragment.getFiles(fileAt);
          int i = random.nextInt(file.getColumnIndicesCount());
          b.setFiles(fileAt, file.toBuilder().setColumnIndices(i, pick(-1, -2, 5, 1 - file.getColumnIndices(i),
              Integer.MAX_VALUE)));
          return new FragmentChange(b.build(), "a column index changed");
        }
      }
      case 7 -> {
        if (fileAt >= 0 && fragment.getFiles(fileAt).getColumnIndicesCount() > 0) {
          DataFile file = fragment.getFiles(fileAt);
          List<Integer> columns = new ArrayList<>(file.getColumnIndicesList());
          columns.remove(random.nextInt(columns.size()));
          b.setFiles(fileAt, file.toBuilder().clearColumnIndices().addAllColumnIndices(columns));
          return new FragmentChange(b.build(), "a column index removed");
        }
      }
      case 8 -> {
        if (fileAt >= 0) {
          DataFile file = fragment.getFiles(fileAt);
          b.setFiles(fileAt, file.toBuilder().setFileMajorVersion(pick(0, 2, 3)).setFileMinorVersion(pick(0, 1, 2, 3, 9)));
          return new FragmentChange(b.build(), "file version changed");
        }
      }
      case 9 -> {
        if (fileAt >= 0) {
          b.addFiles(fragment.getFiles(fileAt));
          return new FragmentChange(b.build(), "a data file listed twice");
        }
      }
      case 10 -> {
        if (fragment.hasDeletionFile()) {
          DeletionFile d = fragment.getDeletionFile();
          b.setDeletionFile(d.toBuilder().setNumDeletedRows(pick(d.getNumDeletedRows() + 1,
              Math.max(0, d.getNumDeletedRows() - 1), fragment.getPhysicalRows() + 1, -1L)));
          return new FragmentChange(b.build(), "num_deleted_rows changed");
        }
      }
      case 11 -> {
        if (fragment.hasDeletionFile()) {
          DeletionFile d = fragment.getDeletionFile();
          DeletionFile.Builder changed = d.toBuilder();
          switch (random.nextInt(3)) {
            case 0 -> changed.setId(d.getId() + 1);
            case 1 -> changed.setReadVersion(d.getReadVersion() + 1);
            default -> changed.setFileType(d.getFileType() == DeletionFile.DeletionFileType.ARROW_ARRAY
                ? DeletionFile.DeletionFileType.BITMAP : DeletionFile.DeletionFileType.ARROW_ARRAY);
          }
          b.setDeletionFile(changed);
          return new FragmentChange(b.build(), "deletion file reference changed");
        }
      }
      case 12 -> {
        b.setDeletionFile(DeletionFile.newBuilder().setId(random.nextLong()).setReadVersion(1).setNumDeletedRows(1));
        return new FragmentChange(b.build(), "a deletion file nobody wrote");
      }
      case 13 -> {
        if (fileAt >= 0) {
          b.removeFiles(fileAt);
          return new FragmentChange(b.build(), "a data file dropped");
        }
      }
      case 14 -> {
        b.setInlineRowIds(ByteString.copyFrom(randomBytes(1 + random.nextInt(12))));
        return new FragmentChange(b.build(), "inline row ids set");
      }
      default -> {
        if (fileAt >= 0) {
          b.setFiles(fileAt, fragment.getFiles(fileAt).toBuilder().setBaseId(random.nextInt(3)));
          return new FragmentChange(b.build(), "a base id set");
        }
      }
    }
    return new FragmentChange(b.setPhysicalRows(fragment.getPhysicalRows() + 1).build(), "physical_rows + 1");
  }

  private record IndexChange(IndexMetadata index, String description) {}

  private IndexChange indexChange(IndexMetadata index) {
    IndexMetadata.Builder b = index.toBuilder();
    switch (random.nextInt(7)) {
      case 0 -> {
        return new IndexChange(b.setFragmentBitmap(bitmapWith(index.getFragmentBitmap(), 999)).build(),
            "index bitmap names fragment 999");
      }
      case 1 -> {
        return new IndexChange(b.clearFields().addFields(pick(7, -1, 1)).build(), "index field changed");
      }
      case 2 -> {
        if (index.getFilesCount() > 0) {
          int at = random.nextInt(index.getFilesCount());
          IndexFile file = index.getFiles(at);
          return new IndexChange(b.setFiles(at, file.toBuilder().setSizeBytes(file.getSizeBytes() + 1)).build(),
              "index file size + 1");
        }
      }
      case 3 -> {
        byte[] uuid = index.getUuid().getUuid().toByteArray();
        if (uuid.length > 0) {
          uuid[random.nextInt(uuid.length)] ^= 1;
        }
        return new IndexChange(b.setUuid(UUID.newBuilder().setUuid(ByteString.copyFrom(uuid))).build(),
            "index uuid changed");
      }
      case 4 -> {
        return new IndexChange(b.setDatasetVersion(index.getDatasetVersion() + 1000).build(),
            "index dataset_version from the future");
      }
      case 5 -> {
        return new IndexChange(b.setFragmentBitmap(ByteString.copyFrom(randomBytes(1 + random.nextInt(20)))).build(),
            "index bitmap garbled");
      }
      default -> {
        return new IndexChange(b.clearFiles().build(), "index files list cleared");
      }
    }
    return new IndexChange(b.setDatasetVersion(index.getDatasetVersion() + 1).build(), "index dataset_version + 1");
  }

  private static ByteString bitmapWith(ByteString bitmap, int fragment) {
    org.roaringbitmap.RoaringBitmap ids = new org.roaringbitmap.RoaringBitmap();
    if (!bitmap.isEmpty()) {
      try {
        ids.deserialize(bitmap.asReadOnlyByteBuffer());
      } catch (java.io.IOException | RuntimeException e) {
        ids.clear(); // an earlier mutation garbled it: start from nothing
      }
    }
    ids.add(fragment);
    java.nio.ByteBuffer out = java.nio.ByteBuffer.allocate(ids.serializedSizeInBytes());
    ids.serialize(out);
    return ByteString.copyFrom(out.array());
  }

  /** The fragments a transaction carries (added, updated, or replacing), in one list. */
  static List<DataFragment> fragmentsOf(Transaction txn) {
    return switch (txn.getOperationCase()) {
      case APPEND -> txn.getAppend().getFragmentsList();
      case OVERWRITE -> txn.getOverwrite().getFragmentsList();
      case DELETE -> txn.getDelete().getUpdatedFragmentsList();
      case UPDATE -> {
        List<DataFragment> all = new ArrayList<>(txn.getUpdate().getUpdatedFragmentsList());
        all.addAll(txn.getUpdate().getNewFragmentsList());
        yield all;
      }
      case REWRITE -> {
        List<DataFragment> all = new ArrayList<>();
        txn.getRewrite().getGroupsList().forEach(g -> all.addAll(g.getNewFragmentsList()));
        yield all;
      }
      default -> List.of();
    };
  }

  private static Transaction withFragment(Transaction txn, int at, DataFragment fragment) {
    Transaction.Builder b = txn.toBuilder();
    switch (txn.getOperationCase()) {
      case APPEND -> b.getAppendBuilder().setFragments(at, fragment);
      case OVERWRITE -> b.getOverwriteBuilder().setFragments(at, fragment);
      case DELETE -> b.getDeleteBuilder().setUpdatedFragments(at, fragment);
      case UPDATE -> {
        int updated = txn.getUpdate().getUpdatedFragmentsCount();
        if (at < updated) {
          b.getUpdateBuilder().setUpdatedFragments(at, fragment);
        } else {
          b.getUpdateBuilder().setNewFragments(at - updated, fragment);
        }
      }
      case REWRITE -> {
        int i = at;
        for (int g = 0; g < txn.getRewrite().getGroupsCount(); g++) {
          int count = txn.getRewrite().getGroups(g).getNewFragmentsCount();
          if (i < count) {
            b.getRewriteBuilder().getGroupsBuilder(g).setNewFragments(i, fragment);
            break;
          }
          i -= count;
        }
      }
      default -> throw new IllegalArgumentException("no fragments in " + txn.getOperationCase());
    }
    return b.build();
  }

  static Transaction parseOrNull(byte[] bytes) {
    try {
      return Transaction.parseFrom(bytes);
    } catch (InvalidProtocolBufferException e) {
      return null;
    }
  }

  private String flipChar(String s) {
    if (s.isEmpty()) {
      return "x";
    }
    char[] chars = s.toCharArray();
    int at = random.nextInt(chars.length);
    chars[at] = chars[at] == '0' ? '1' : (char) ('0' + random.nextInt(10));
    return new String(chars);
  }

  private String randomText(int length) {
    StringBuilder out = new StringBuilder();
    for (int i = 0; i < length; i++) {
      out.append((char) (' ' + random.nextInt(95)));
    }
    return out.toString();
  }

  byte[] randomBytes(int n) {
    byte[] out = new byte[n];
    random.nextBytes(out);
    return out;
  }

  @SafeVarargs
  private <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  private static byte[] concat(byte[]... parts) {
    int n = 0;
    for (byte[] p : parts) {
      n += p.length;
    }
    byte[] out = new byte[n];
    int at = 0;
    for (byte[] p : parts) {
      System.arraycopy(p, 0, out, at, p.length);
      at += p.length;
    }
    return out;
  }

  @SuppressWarnings("unused")
  private static String text(byte[] bytes) {
    return new String(bytes, StandardCharsets.ISO_8859_1);
  }
}
