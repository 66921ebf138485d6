package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Transaction;
import java.util.LinkedHashMap;
import java.util.Map;

/** Applies an {@code UpdateMap}: replace = keep only the entries with values; else upsert valued, delete bare keys. */
final class UpdateMaps {
  private UpdateMaps() {}

  static Map<String, String> apply(Map<String, String> target, Transaction.UpdateMap update) {
    Map<String, String> result = update.getReplace() ? new LinkedHashMap<>() : new LinkedHashMap<>(target);
    for (Transaction.UpdateMapEntry entry : update.getUpdateEntriesList()) {
      if (entry.hasValue()) {
        result.put(entry.getKey(), entry.getValue());
      } else if (!update.getReplace()) {
        result.remove(entry.getKey());
      }
    }
    return result;
  }

  /** Same rule for the byte-valued maps of the schema (values are UTF-8 text in practice). */
  static Map<String, ByteString> applyToBytes(Map<String, ByteString> target, Transaction.UpdateMap update) {
    Map<String, ByteString> result = update.getReplace() ? new LinkedHashMap<>() : new LinkedHashMap<>(target);
    for (Transaction.UpdateMapEntry entry : update.getUpdateEntriesList()) {
      if (entry.hasValue()) {
        result.put(entry.getKey(), ByteString.copyFromUtf8(entry.getValue()));
      } else if (!update.getReplace()) {
        result.remove(entry.getKey());
      }
    }
    return result;
  }

  /** The deprecated upsert_values/delete_keys pair as one incremental UpdateMap. */
  static Transaction.UpdateMap incremental(Map<String, String> upserts, Iterable<String> deletes) {
    Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder().setReplace(false);
    upserts.forEach((k, v) -> map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(k).setValue(v)));
    deletes.forEach(k -> map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(k)));
    return map.build();
  }

  /** The deprecated full-replacement metadata maps as one replacing UpdateMap. */
  static Transaction.UpdateMap replacing(Map<String, String> values) {
    Transaction.UpdateMap.Builder map = Transaction.UpdateMap.newBuilder().setReplace(true);
    values.forEach((k, v) -> map.addUpdateEntries(Transaction.UpdateMapEntry.newBuilder().setKey(k).setValue(v)));
    return map.build();
  }
}
