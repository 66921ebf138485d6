package dev.lancecommit.format;

import com.google.protobuf.Descriptors.Descriptor;
import com.google.protobuf.Descriptors.FieldDescriptor;
import com.google.protobuf.Message;
import com.google.protobuf.UnknownFieldSet;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Finds fields whose number the schema declares but whose wire type is not the declared one.
 *
 * <p>protobuf-java keeps such a field as an unknown field and writes it back unchanged, so a message that Java parses
 * without complaint can carry it into a manifest. Stock Lance decodes with prost, which does not check the wire type
 * of a map field: a varint under {@code transaction_properties} is read as the length of a map entry, and the table
 * can no longer be listed or opened. Any such field, at any depth, makes the message unsafe to record.
 *
 * <p>Every commit's transaction is walked, so the walk visits only the fields that can hold messages (known per
 * message type) and names a path only for what it finds: a transaction of thousands of fragments costs one visit per
 * nested message, not a map of every field of each.
 */
public final class MisencodedFields {
  private static final Map<Descriptor, List<FieldDescriptor>> MESSAGE_FIELDS = new ConcurrentHashMap<>();

  private MisencodedFields() {}

  /** Paths such as {@code transaction_properties (field 4)} or {@code append.fragments[2].files[0].fields (field 2)}. */
  public static List<String> in(Message message) {
    List<String> found = new ArrayList<>(0);
    walk(message, null, found);
    return found;
  }

  private static void walk(Message message, Path path, List<String> found) {
    UnknownFieldSet unknown = message.getUnknownFields();
    if (!unknown.isEmpty()) { // asMap() copies: only where there is something
      Descriptor type = message.getDescriptorForType();
      for (Integer number : unknown.asMap().keySet()) {
        FieldDescriptor declared = type.findFieldByNumber(number);
        if (declared != null) {
          String kind = declared.getType().name().toLowerCase(Locale.ROOT);
          found.add(Path.render(path) + declared.getName() + " (field " + number + ", declared " + kind
              + ", sent with another wire type)");
        }
      }
    }
    for (FieldDescriptor field : messageFields(message.getDescriptorForType())) {
      if (field.isRepeated()) {
        List<?> values = (List<?>) message.getField(field); // one reflective call for the list, not one per element
        for (int i = 0; i < values.size(); i++) {
          walk((Message) values.get(i), new Path(path, field.getName(), i), found);
        }
      } else if (message.hasField(field)) {
        walk((Message) message.getField(field), new Path(path, field.getName(), -1), found);
      }
    }
  }

  private static List<FieldDescriptor> messageFields(Descriptor type) {
    return MESSAGE_FIELDS.computeIfAbsent(type, t -> t.getFields().stream()
        .filter(field -> field.getJavaType() == FieldDescriptor.JavaType.MESSAGE)
        // A map's entries are made afresh on every reflective read, and neither they nor scalar values keep unknown
        // fields: only maps of messages are walked.
        .filter(field -> !field.isMapField() || field.getMessageType().findFieldByName("value").getJavaType()
            == FieldDescriptor.JavaType.MESSAGE)
        .sorted(Comparator.comparingInt(FieldDescriptor::getNumber)) // reported in field-number order
        .toList());
  }

  /** Where a nested message sits, rendered only when something in it is reported. */
  private record Path(Path parent, String field, int index) {
    static String render(Path path) {
      if (path == null) {
        return "";
      }
      return render(path.parent) + path.field + (path.index >= 0 ? "[" + path.index + "]" : "") + ".";
    }
  }
}
