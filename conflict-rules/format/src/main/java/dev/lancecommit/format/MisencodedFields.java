package dev.lancecommit.format;

import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * Finds fields whose number the schema declares but whose wire type is not the declared one.
 *
 * <p>protobuf-java keeps such a field as an unknown field and writes it back unchanged, so a message that Java parses
 * without complaint can carry it into a manifest. Stock Lance decodes with prost, which does not check the wire type
 * of a map field: a varint under {@code transaction_properties} is read as the length of a map entry, and the table
 * can no longer be listed or opened. Any such field, at any depth, makes the message unsafe to record.
 */
public final class MisencodedFields {
  private MisencodedFields() {}

  /** Paths such as {@code transaction_properties (field 4)} or {@code append.fragments[2].files[0].fields (field 2)}. */
  public static List<String> in(Message message) {
    List<String> found = new ArrayList<>();
    walk(message, "", found);
    return found;
  }

  private static void walk(Message message, String path, List<String> found) {
    UnknownFieldSet unknown = message.getUnknownFields();
    for (Map.Entry<Integer, UnknownFieldSet.Field> entry : unknown.asMap().entrySet()) {
      FieldDescriptor declared = message.getDescriptorForType().findFieldByNumber(entry.getKey());
      if (declared != null) {
        String type = declared.getType().name().toLowerCase(Locale.ROOT);
        found.add(path + declared.getName() + " (field " + entry.getKey() + ", declared " + type
            + ", sent with another wire type)");
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
          walk((Message) values.get(i), name + "[" + i + "].", found);
        }
      } else {
        walk((Message) field.getValue(), name + ".", found);
      }
    }
  }
}
