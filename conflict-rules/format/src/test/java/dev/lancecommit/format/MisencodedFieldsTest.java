package dev.lancecommit.format;

import static dev.lancecommit.format.ManifestFileTest.concat;
import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.DataFile;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.DeletionFile;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;

class MisencodedFieldsTest {
  private static final String UUID = "0b6f0c44-5ad5-4a3a-a5f4-1c2f2d7f5e10";

  private static Transaction append() {
    return Transaction.newBuilder().setReadVersion(3).setUuid(UUID)
        .putTransactionProperties("k", "v")
        .setAppend(Transaction.Append.newBuilder().addFragments(DataFragment.newBuilder().setId(0)
            .setPhysicalRows(5).addFiles(DataFile.newBuilder().setPath("a.lance").addFields(0))))
        .build();
  }

  @Test
  void aWellFormedTransactionAndFieldsOfFutureVersionsPass() throws Exception {
    assertThat(MisencodedFields.in(append())).isEmpty();
    // field 117 is declared nowhere: an unknown field is preserved, not refused
    Transaction future = Transaction.parseFrom(concat(append().toByteArray(), new byte[] {(byte) 0xAA, 0x07, 0}));
    assertThat(future.getUnknownFields().hasField(117)).isTrue();
    assertThat(MisencodedFields.in(future)).isEmpty();
  }

  @Test
  void aVarintUnderTheTransactionPropertiesMapIsFound() throws Exception {
    // tag (4 << 3 | 0) = 0x20: field 4 as a varint. Java keeps it as an unknown field; prost reads 0x7F as the length
    // of a map entry (the fuzz suite's "Transaction.transaction_properties: buffer underflow")
    Transaction parsed = Transaction.parseFrom(concat(append().toByteArray(), new byte[] {0x20, 0x7F}));
    assertThat(parsed.getTransactionPropertiesMap()).containsEntry("k", "v");
    assertThat(MisencodedFields.in(parsed)).singleElement().asString()
        .startsWith("transaction_properties (field 4");
  }

  @Test
  void aMisencodedFieldDeepInsideAnOperationIsNamedByItsPath() {
    // DataFile.path (field 1, a string) sent as a fixed32 inside the second file of the first fragment
    DataFile odd = DataFile.newBuilder().setPath("b.lance")
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(1, UnknownFieldSet.Field.newBuilder().addFixed32(7).build()).build())
        .build();
    Transaction txn = append().toBuilder()
        .setAppend(append().getAppend().toBuilder()
            .setFragments(0, append().getAppend().getFragments(0).toBuilder().addFiles(odd)))
        .build();
    assertThat(MisencodedFields.in(txn)).containsExactly("append.fragments[0].files[1].path (field 1, declared "
        + "string, sent with another wire type)");
    // the same number with the declared wire type is simply a field
    assertThat(MisencodedFields.in(append().toBuilder().setTag("x").build())).isEmpty();
  }

  @Test
  void aMisencodedFieldInASingularMessageIsNamedWithoutAnIndex() {
    DeletionFile odd = DeletionFile.newBuilder().setId(3).setNumDeletedRows(1)
        .setUnknownFields(UnknownFieldSet.newBuilder()
            .addField(2, UnknownFieldSet.Field.newBuilder().addLengthDelimited(
                com.google.protobuf.ByteString.copyFromUtf8("x")).build()).build())
        .build();
    DataFragment fragment = append().getAppend().getFragments(0).toBuilder().setDeletionFile(odd).build();
    Transaction txn = Transaction.newBuilder().setReadVersion(3).setUuid(UUID)
        .setUpdate(Transaction.Update.newBuilder().addUpdatedFragments(fragment)).build();
    assertThat(MisencodedFields.in(txn)).singleElement().asString()
        .startsWith("update.updated_fragments[0].deletion_file.read_version (field 2, declared uint64");
  }

  /**
   * Random Appends and Updates of up to 40 fragments, with fields of declared numbers sent with another wire type
   * (and undeclared ones) put into random nested messages: the walk finds exactly what a walk over every field of every
   * message ({@link #everyField}, the walk this one replaced) finds, in the same order.
   */
  @Test
  void findsWhatAWalkOverEveryFieldFinds() {
    Random random = new Random(20261205);
    int withFindings = 0;
    for (int round = 0; round < 300; round++) {
      Transaction txn = (Transaction) sprinkle(randomTransaction(random), random);
      List<String> expected = new ArrayList<>();
      everyField(txn, "", expected);
      assertThat(MisencodedFields.in(txn)).as("round %s", round).isEqualTo(expected);
      withFindings += expected.isEmpty() ? 0 : 1;
    }
    assertThat(withFindings).as("rounds with something to find").isBetween(100, 299);
  }

  private static Transaction randomTransaction(Random random) {
    List<DataFragment> fragments = new ArrayList<>();
    for (int i = 0, n = 1 + random.nextInt(40); i < n; i++) {
      DataFragment.Builder fragment = DataFragment.newBuilder().setId(i).setPhysicalRows(1 + random.nextInt(100));
      for (int f = 0, files = 1 + random.nextInt(3); f < files; f++) {
        fragment.addFiles(DataFile.newBuilder().setPath("f" + i + "-" + f + ".lance").addFields(f));
      }
      if (random.nextBoolean()) {
        fragment.setDeletionFile(DeletionFile.newBuilder().setId(i).setReadVersion(2).setNumDeletedRows(1));
      }
      fragments.add(fragment.build());
    }
    Transaction.Builder txn = Transaction.newBuilder().setReadVersion(3).setUuid(UUID)
        .putTransactionProperties("k", "v");
    if (random.nextBoolean()) {
      txn.setAppend(Transaction.Append.newBuilder().addAllFragments(fragments));
    } else {
      int split = random.nextInt(fragments.size() + 1);
      txn.setUpdate(Transaction.Update.newBuilder().addRemovedFragmentIds(99)
          .addAllUpdatedFragments(fragments.subList(0, split))
          .addAllNewFragments(fragments.subList(split, fragments.size())));
    }
    return txn.build();
  }

  /** Rebuilds {@code message} with, in about one nested message in twelve, a varint under a random field number. */
  private static Message sprinkle(Message message, Random random) {
    Message.Builder builder = message.toBuilder();
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      FieldDescriptor descriptor = field.getKey();
      if (descriptor.getJavaType() != FieldDescriptor.JavaType.MESSAGE || descriptor.isMapField()) {
        continue;
      }
      if (descriptor.isRepeated()) {
        List<?> values = (List<?>) field.getValue();
        for (int i = 0; i < values.size(); i++) {
          builder.setRepeatedField(descriptor, i, sprinkle((Message) values.get(i), random));
        }
      } else {
        builder.setField(descriptor, sprinkle((Message) field.getValue(), random));
      }
    }
    if (random.nextInt(12) == 0) {
      int number = 1 + random.nextInt(12); // most are declared, some (and their wire types) not
      builder.setUnknownFields(UnknownFieldSet.newBuilder(message.getUnknownFields())
          .addField(number, UnknownFieldSet.Field.newBuilder().addVarint(random.nextInt(100)).build()).build());
    }
    return builder.build();
  }

  /** The walk over every field of every message ({@code getAllFields}), as MisencodedFields first did it. */
  private static void everyField(Message message, String path, List<String> found) {
    for (Map.Entry<Integer, UnknownFieldSet.Field> entry : message.getUnknownFields().asMap().entrySet()) {
      FieldDescriptor declared = message.getDescriptorForType().findFieldByNumber(entry.getKey());
      if (declared != null) {
        found.add(path + declared.getName() + " (field " + entry.getKey() + ", declared "
            + declared.getType().name().toLowerCase(Locale.ROOT) + ", sent with another wire type)");
      }
    }
    for (Map.Entry<FieldDescriptor, Object> field : message.getAllFields().entrySet()) {
      FieldDescriptor descriptor = field.getKey();
      if (descriptor.getJavaType() != FieldDescriptor.JavaType.MESSAGE) {
        continue;
      }
      String name = path + descriptor.getName();
      if (descriptor.isRepeated()) {
        List<?> values = (List<?>) field.getValue();
        for (int i = 0; i < values.size(); i++) {
          everyField((Message) values.get(i), name + "[" + i + "].", found);
        }
      } else {
        everyField((Message) field.getValue(), name + ".", found);
      }
    }
  }
}
