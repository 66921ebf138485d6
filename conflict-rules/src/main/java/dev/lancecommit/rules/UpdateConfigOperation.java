package dev.lancecommit.rules;

import com.google.protobuf.ByteString;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

/**
 * UpdateConfig: UpdateMaps applied to the table config, the table metadata, the schema metadata and per field id
 * to a field's metadata. The deprecated fields (1-4) are translated: upsert_values/delete_keys become an
 * incremental config update, schema_metadata and field_metadata full replacements. Mixing both styles is refused.
 */
final class UpdateConfigOperation {
  private UpdateConfigOperation() {}

  /** The new-style view of the operation, or an InvalidTransactionException when the styles are mixed. */
  static Transaction.UpdateConfig normalized(Transaction.UpdateConfig update) {
    boolean newStyle = update.hasConfigUpdates() || update.hasTableMetadataUpdates()
        || update.hasSchemaMetadataUpdates() || update.getFieldMetadataUpdatesCount() > 0;
    boolean oldStyle = update.getUpsertValuesCount() > 0 || update.getDeleteKeysCount() > 0
        || update.getSchemaMetadataCount() > 0 || update.getFieldMetadataCount() > 0;
    if (newStyle && oldStyle) {
      throw new InvalidTransactionException("Cannot mix old and new style UpdateConfig fields");
    }
    if (!oldStyle) {
      return update;
    }
    Transaction.UpdateConfig.Builder translated = Transaction.UpdateConfig.newBuilder();
    if (update.getUpsertValuesCount() > 0 || update.getDeleteKeysCount() > 0) {
      // Sorted so that the translation does not depend on map iteration order.
      translated.setConfigUpdates(
          UpdateMaps.incremental(new TreeMap<>(update.getUpsertValuesMap()), update.getDeleteKeysList()));
    }
    if (update.getSchemaMetadataCount() > 0) {
      translated.setSchemaMetadataUpdates(UpdateMaps.replacing(new TreeMap<>(update.getSchemaMetadataMap())));
    }
    update.getFieldMetadataMap().forEach((fieldId, metadata) -> translated.putFieldMetadataUpdates(
        fieldId, UpdateMaps.replacing(new TreeMap<>(metadata.getMetadataMap()))));
    return translated.build();
  }

  static void apply(ManifestDraft draft, Transaction.UpdateConfig operation) {
    Transaction.UpdateConfig update = normalized(operation);
    Manifest.Builder manifest = draft.manifest();
    if (update.hasConfigUpdates()) {
      Map<String, String> config = UpdateMaps.apply(manifest.getConfigMap(), update.getConfigUpdates());
      manifest.clearConfig().putAllConfig(config);
    }
    if (update.hasTableMetadataUpdates()) {
      Map<String, String> metadata =
          UpdateMaps.apply(manifest.getTableMetadataMap(), update.getTableMetadataUpdates());
      manifest.clearTableMetadata().putAllTableMetadata(metadata);
    }
    if (update.hasSchemaMetadataUpdates()) {
      Map<String, ByteString> metadata =
          UpdateMaps.applyToBytes(manifest.getSchemaMetadataMap(), update.getSchemaMetadataUpdates());
      manifest.clearSchemaMetadata().putAllSchemaMetadata(metadata);
    }
    if (update.getFieldMetadataUpdatesCount() > 0) {
      applyFieldMetadata(manifest, new TreeMap<>(update.getFieldMetadataUpdatesMap()));
    }
  }

  private static void applyFieldMetadata(Manifest.Builder manifest, Map<Integer, Transaction.UpdateMap> updates) {
    Map<Integer, Integer> positionById = new LinkedHashMap<>();
    List<Field> fields = manifest.getFieldsList();
    for (int i = 0; i < fields.size(); i++) {
      positionById.putIfAbsent(fields.get(i).getId(), i);
    }
    for (Map.Entry<Integer, Transaction.UpdateMap> update : updates.entrySet()) {
      Integer position = positionById.get(update.getKey());
      if (position == null) {
        throw new InvalidTransactionException("Field with id " + update.getKey() + " does not exist");
      }
      Field field = manifest.getFields(position);
      Map<String, ByteString> metadata = UpdateMaps.applyToBytes(field.getMetadataMap(), update.getValue());
      manifest.setFields(position, field.toBuilder().clearMetadata().putAllMetadata(metadata));
    }
  }
}
