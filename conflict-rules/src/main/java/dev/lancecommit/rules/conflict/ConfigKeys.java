package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.format.pb.Transaction.UpdateConfig;
import dev.lancecommit.format.pb.Transaction.UpdateMap;
import dev.lancecommit.format.pb.Transaction.UpdateMapEntry;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;
import java.util.Optional;
import java.util.SortedMap;
import java.util.SortedSet;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * Config and metadata key overlap: Lance's {@code upsert_key_conflict} and {@code modifies_same_metadata}, and the
 * conditions k1 to k4 built on them.
 */
final class ConfigKeys {
  private ConfigKeys() {}

  /** One map update, whichever style (UpdateMap or the deprecated fields) expressed it. */
  record MapChange(boolean present, boolean replace, SortedSet<String> upserts, SortedSet<String> deletes) {
    static final MapChange NONE = new MapChange(false, false, new TreeSet<>(), new TreeSet<>());

    static MapChange of(UpdateMap map) {
      TreeSet<String> upserts = new TreeSet<>();
      TreeSet<String> deletes = new TreeSet<>();
      for (UpdateMapEntry entry : map.getUpdateEntriesList()) {
        (entry.hasValue() ? upserts : deletes).add(entry.getKey());
      }
      return new MapChange(true, map.getReplace(), upserts, deletes);
    }

    MapChange union(MapChange other) {
      if (!other.present) {
        return this;
      }
      if (!present) {
        return other;
      }
      TreeSet<String> u = new TreeSet<>(upserts);
      u.addAll(other.upserts);
      TreeSet<String> d = new TreeSet<>(deletes);
      d.addAll(other.deletes);
      return new MapChange(true, replace || other.replace, u, d);
    }

    /** Lance 2026 {@code updates_schema_or_field_metadata}: an update that actually changes something. */
    boolean changesSomething() {
      return present && (replace || !upserts.isEmpty() || !deletes.isEmpty());
    }

    SortedSet<String> keys() {
      TreeSet<String> keys = new TreeSet<>(upserts);
      keys.addAll(deletes);
      return keys;
    }
  }

  /**
   * An UpdateConfig as Lance decodes it. The deprecated style translates as Lance does (upsert_values/delete_keys ->
   * config upserts/deletes; schema_metadata and field_metadata -> full replacements). Lance refuses a transaction
   * mixing both styles; here both are read and united, which can only add conflicts.
   */
  record ConfigView(
      MapChange config, MapChange tableMetadata, MapChange schemaMetadata, SortedMap<Integer, MapChange> fields) {

    static ConfigView of(UpdateConfig uc) {
      MapChange config = uc.hasConfigUpdates() ? MapChange.of(uc.getConfigUpdates()) : MapChange.NONE;
      if (uc.getUpsertValuesCount() > 0 || uc.getDeleteKeysCount() > 0) {
        config = config.union(new MapChange(true, false,
            new TreeSet<>(uc.getUpsertValuesMap().keySet()), new TreeSet<>(uc.getDeleteKeysList())));
      }
      MapChange table = uc.hasTableMetadataUpdates() ? MapChange.of(uc.getTableMetadataUpdates()) : MapChange.NONE;
      MapChange schema = uc.hasSchemaMetadataUpdates() ? MapChange.of(uc.getSchemaMetadataUpdates()) : MapChange.NONE;
      if (uc.getSchemaMetadataCount() > 0) {
        schema = schema.union(new MapChange(true, true, new TreeSet<>(uc.getSchemaMetadataMap().keySet()),
            new TreeSet<>()));
      }
      TreeMap<Integer, MapChange> fields = new TreeMap<>();
      uc.getFieldMetadataUpdatesMap().forEach((id, map) -> fields.merge(id, MapChange.of(map), MapChange::union));
      uc.getFieldMetadataMap().forEach((id, update) -> fields.merge(id, new MapChange(true, true,
          new TreeSet<>(update.getMetadataMap().keySet()), new TreeSet<>()), MapChange::union));
      return new ConfigView(config, table, schema, fields);
    }
  }

  static Optional<ConfigView> view(Transaction txn) {
    return txn.hasUpdateConfig() ? Optional.of(ConfigView.of(txn.getUpdateConfig())) : Optional.empty();
  }

  /** Config keys upserted: Overwrite's config_upsert_values, or UpdateConfig config entries with a value. */
  static SortedSet<String> upsertKeys(Transaction txn) {
    if (txn.hasOverwrite()) {
      return new TreeSet<>(txn.getOverwrite().getConfigUpsertValuesMap().keySet());
    }
    return view(txn).map(v -> v.config().upserts()).orElseGet(TreeSet::new);
  }

  /** Config keys deleted: UpdateConfig config entries without a value. */
  static SortedSet<String> deleteKeys(Transaction txn) {
    return view(txn).map(v -> v.config().deletes()).orElseGet(TreeSet::new);
  }

  private static boolean replacesConfig(Transaction txn) {
    return view(txn).map(v -> v.config().replace()).orElse(false);
  }

  private static boolean touchesConfig(Transaction txn) {
    return replacesConfig(txn) || !upsertKeys(txn).isEmpty() || !deleteKeys(txn).isEmpty();
  }

  /**
   * Lance's {@code upsert_key_conflict}: a key one side upserts is upserted or deleted by the other. Symmetric.
   * One addition: an UpdateConfig that replaces the whole config map conflicts with any config change of the other
   * side (Lance ignores {@code replace} here; PR #6667 applies the same rule to table metadata).
   *
   * @return the conflict as a clause, or empty
   */
  static Optional<String> upsertKeyConflict(Transaction a, Transaction b) {
    TreeSet<String> keys = new TreeSet<>();
    SortedSet<String> aUp = upsertKeys(a);
    SortedSet<String> bUp = upsertKeys(b);
    for (String key : aUp) {
      if (bUp.contains(key) || deleteKeys(b).contains(key)) {
        keys.add(key);
      }
    }
    for (String key : bUp) {
      if (aUp.contains(key) || deleteKeys(a).contains(key)) {
        keys.add(key);
      }
    }
    if (!keys.isEmpty()) {
      return Optional.of("both change config keys " + keys);
    }
    if ((replacesConfig(a) && touchesConfig(b)) || (replacesConfig(b) && touchesConfig(a))) {
      return Optional.of("one side replaces the whole config map while the other changes it");
    }
    return Optional.empty();
  }

  /**
   * Lance's {@code modifies_same_metadata} for two UpdateConfigs: both update schema metadata, or both update the
   * metadata of one field id, or [2026, PR #6667] both update table metadata and either replaces it or both touch
   * one key. Symmetric.
   */
  static Optional<String> modifiesSameMetadata(ConfigView a, ConfigView b) {
    if (a.schemaMetadata().present() && b.schemaMetadata().present()) {
      return Optional.of("both update schema metadata");
    }
    TreeSet<Integer> fields = new TreeSet<>(a.fields().keySet());
    fields.retainAll(b.fields().keySet());
    if (!fields.isEmpty()) {
      return Optional.of("both update the metadata of field ids " + fields);
    }
    if (a.tableMetadata().present() && b.tableMetadata().present()) {
      if (a.tableMetadata().replace() || b.tableMetadata().replace()) {
        return Optional.of("both update table metadata and one replaces it whole");
      }
      SortedSet<String> keys = a.tableMetadata().keys();
      keys.retainAll(b.tableMetadata().keys());
      if (!keys.isEmpty()) {
        return Optional.of("both update table metadata keys " + keys);
      }
    }
    return Optional.empty();
  }

  /** k1 (Overwrite vs UpdateConfig): X on a config key conflict, else C. */
  static Verdict k1(Transaction ours, Transaction theirs, RebaseInputs context) {
    return upsertKeyConflict(ours, theirs)
        .map(Verdict::incompatible)
        .orElseGet(() -> Verdict.compatible("no config key is changed by both"));
  }

  /** k4 [2026] (Overwrite vs Overwrite): X on a config key conflict, else R. */
  static Verdict k4(Transaction ours, Transaction theirs, RebaseInputs context) {
    return upsertKeyConflict(ours, theirs)
        .map(Verdict::incompatible)
        .orElseGet(() -> Verdict.retryable(
            "another overwrite landed first; retry to decide whether this one should still replace it"));
  }

  /** k2 (UpdateConfig vs Overwrite): X when ours updates schema or field metadata, or on a config key conflict. */
  static Verdict k2(Transaction ours, Transaction theirs, RebaseInputs context) {
    ConfigView view = ConfigView.of(ours.getUpdateConfig());
    if (view.schemaMetadata().present()) {
      return Verdict.incompatible("ours updates schema metadata, which the overwrite replaced");
    }
    if (!view.fields().isEmpty()) {
      return Verdict.incompatible("ours updates the metadata of field ids " + view.fields().keySet()
          + ", which the overwrite replaced");
    }
    return upsertKeyConflict(ours, theirs)
        .map(Verdict::incompatible)
        .orElseGet(() -> Verdict.compatible("ours changes only config keys the overwrite did not set"));
  }

  /** k3 (UpdateConfig vs UpdateConfig): X on a config key conflict or when both modify the same metadata. */
  static Verdict k3(Transaction ours, Transaction theirs, RebaseInputs context) {
    Optional<String> keys = upsertKeyConflict(ours, theirs);
    if (keys.isPresent()) {
      return Verdict.incompatible(keys.get());
    }
    return modifiesSameMetadata(ConfigView.of(ours.getUpdateConfig()), ConfigView.of(theirs.getUpdateConfig()))
        .map(Verdict::incompatible)
        .orElseGet(() -> Verdict.compatible("the two updates change disjoint keys and metadata"));
  }
}

