package dev.lancecommit.coordinator.batch;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Batch records in the warehouse: {@code _catalog/batches/{batch_id}.json} ({@link BatchRecord}, put-if-absent: the
 * batch's commit point) and, once every member version is written, {@code _catalog/batches/{batch_id}.done}. A record
 * without its marker is an unfinished batch, completed by the next coordinator to start. Finished records are kept
 * for {@code retention} (what happened stays inspectable) and then removed.
 */
final class BatchLog {
  private static final Logger LOG = LoggerFactory.getLogger(BatchLog.class);
  static final String DIR = "_catalog/batches";
  private static final String RECORD = ".json";
  private static final String DONE = ".done";
  private static final String INTENT = ".intent";

  private final StorageLocation warehouse;

  BatchLog(StorageLocation warehouse) {
    this.warehouse = warehouse;
  }

  /** Outcome of writing a record. */
  enum Written { WRITTEN, ABSENT, ABORTED, UNKNOWN }

  /**
   * Writes the record with put-if-absent. WRITTEN: it is there (now or from an earlier attempt); ABSENT: it
   * certainly is not; ABORTED: the owner of a member's table fenced the batch first (cluster mode, a hold whose
   * lease ran out), so it never will be; UNKNOWN: the store answered neither way (write and read-back failed).
   */
  Written write(BatchRecord record) {
    byte[] bytes = record.encode();
    String key = recordKey(record.batchId());
    try {
      warehouse.store().putIfAbsent(key, bytes);
      return Written.WRITTEN;
    } catch (ObjectAlreadyExistsException e) {
      // A batch id is a fresh uuid: only our own earlier attempt, or an owner's abort, can hold it.
      Optional<BatchRecord> there = read(record.batchId());
      if (there.isPresent() && there.get().aborted()) {
        return Written.ABORTED;
      }
      return there.map(r -> Arrays.equals(r.encode(), bytes)).orElse(false) ? Written.WRITTEN : Written.ABSENT;
    } catch (StoreUnavailableException e) {
      LOG.warn("Batch record {} was not written: {}", record.batchId(), e.toString());
      return Written.ABSENT;
    } catch (StoreOutcomeUnknownException e) {
      LOG.warn("Outcome of writing batch record {} is unknown; reading it back", record.batchId(), e);
      return settle(record.batchId());
    }
  }

  /** Reads back a record whose write had an unknown outcome. */
  Written settle(String batchId) {
    try {
      Optional<BatchRecord> there = read(batchId);
      return there.isEmpty() ? Written.ABSENT : there.get().aborted() ? Written.ABORTED : Written.WRITTEN;
    } catch (StoreException e) {
      return Written.UNKNOWN;
    }
  }

  Optional<BatchRecord> read(String batchId) {
    return warehouse.store().get(recordKey(batchId)).map(BatchRecord::decode);
  }

  /**
   * Fences a batch that is not recorded: writes its abort at the record's key with put-if-absent (then marks it
   * finished). Empty when the abort is written (the batch can never be recorded); else the record that was there
   * first: the batch happens and its members must be written.
   *
   * @throws StoreException when the store answered neither way: nothing is decided, try again
   */
  Optional<BatchRecord> abort(String batchId, Instant at, String by) {
    BatchRecord abort = BatchRecord.abort(batchId, at.toString(), by);
    try {
      warehouse.store().putIfAbsent(recordKey(batchId), abort.encode());
    } catch (ObjectAlreadyExistsException e) {
      BatchRecord there = read(batchId).orElseThrow(() -> new StoreUnavailableException("Batch record " + batchId
          + " exists but cannot be read", e));
      return there.aborted() ? Optional.empty() : Optional.of(there);
    } catch (StoreOutcomeUnknownException e) {
      BatchRecord there = read(batchId).orElseThrow(() -> e);
      return there.aborted() ? Optional.empty() : Optional.of(there);
    }
    markDone(batchId, at);
    return Optional.empty();
  }

  /**
   * Cluster mode: announces a batch before it holds a lane on another instance ({@link BatchIntent}), with
   * put-if-absent (the id is fresh: an object already there is this call's own earlier attempt).
   *
   * @throws StoreException when the intent may not be there: the batch must not hold lanes elsewhere
   */
  void announce(BatchIntent intent) {
    String key = intentKey(intent.batchId());
    try {
      warehouse.store().putIfAbsent(key, intent.encode());
    } catch (ObjectAlreadyExistsException e) {
      // written by an earlier attempt of this very put
    } catch (StoreOutcomeUnknownException e) {
      if (warehouse.store().get(key).isEmpty()) {
        throw e;
      }
    }
  }

  /** Removes a batch's intent once the batch is decided and needs no settling; best effort. */
  void withdraw(String batchId) {
    try {
      warehouse.store().delete(intentKey(batchId));
    } catch (StoreException e) {
      LOG.debug("Intent of batch {} not removed (removed with its record later): {}", batchId, e.toString());
    }
  }

  /**
   * A batch that may hold a table's next version, as a new lane of that table finds it: recorded and not finished
   * ({@code record} present: its member must be written), or announced and not decided ({@code record} empty: it
   * must be fenced, or rolled forward if its record lands first).
   */
  record InFlight(String batchId, Optional<BatchRecord> record) {}

  /**
   * The batches that may hold {@code table}'s next version: every unfinished record naming it and every intent
   * naming it whose batch is neither recorded nor aborted. One listing of {@code _catalog/batches/}, then a read of
   * each unfinished record and of each intent without a decision.
   *
   * @throws StoreException when the store cannot tell
   */
  List<InFlight> inFlight(dev.lancecommit.coordinator.table.TableRef table) {
    Listing listing = listing();
    List<InFlight> out = new ArrayList<>();
    for (String id : listing.unfinished()) {
      Optional<BatchRecord> record = read(id);
      if (record.isPresent() && !record.get().aborted() && record.get().members().stream().anyMatch(m ->
          m.location().equals(table.location()) && java.util.Objects.equals(m.tableUuid(), table.tableUuid()))) {
        out.add(new InFlight(id, record));
      }
    }
    for (String id : listing.intents()) {
      if (listing.done().containsKey(id) || listing.records().contains(id)) {
        continue; // decided (finished, aborted, or recorded: the record's own entry above)
      }
      Optional<BatchIntent> intent = warehouse.store().get(intentKey(id)).map(BatchIntent::decode);
      if (intent.isPresent() && intent.get().names(table)) {
        out.add(new InFlight(id, Optional.empty()));
      }
    }
    return out;
  }

  /** Marks a batch finished (every member version written). A plain put: writing it twice is harmless. */
  void markDone(String batchId, Instant at) {
    warehouse.store().put(doneKey(batchId), at.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Every recorded batch without its done marker. */
  List<BatchRecord> unfinished() {
    List<BatchRecord> out = new ArrayList<>();
    for (String id : listing().unfinished()) {
      read(id).filter(r -> !r.aborted()).ifPresent(out::add);
    }
    return out;
  }

  /** The kept record whose members are exactly these transactions (in request order), if any. */
  Optional<BatchRecord> findByTransactions(List<String> transactionUuids) {
    for (String id : listing().records()) {
      Optional<BatchRecord> record = read(id);
      if (record.isPresent() && record.get().members().stream().map(BatchRecord.Member::transactionUuid).toList()
          .equals(transactionUuids)) {
        return record;
      }
    }
    return Optional.empty();
  }

  /** Removes finished batches whose done marker is older than {@code retention}; best effort. */
  int removeFinished(Instant now, Duration retention) {
    int removed = 0;
    for (Map.Entry<String, Instant> finished : listing().done().entrySet()) {
      if (finished.getValue().isBefore(now.minus(retention))) {
        String id = finished.getKey();
        try {
          warehouse.store().delete(intentKey(id));
          warehouse.store().delete(recordKey(id));
          warehouse.store().delete(doneKey(id));
          removed++;
        } catch (StoreException e) {
          LOG.debug("Finished batch {} not removed yet: {}", id, e.toString());
        }
      }
    }
    return removed;
  }

  /**
   * One listing of {@code _catalog/batches/}, by batch id: recorded batches (records and aborts), finished ones
   * with the time their done marker was written, and announced ones.
   */
  private record Listing(Set<String> records, Map<String, Instant> done, Set<String> intents) {
    /** Recorded and not finished, in listing order. */
    List<String> unfinished() {
      return records.stream().filter(id -> !done.containsKey(id)).toList();
    }
  }

  private Listing listing() {
    Set<String> records = new LinkedHashSet<>();
    Map<String, Instant> done = new HashMap<>();
    Set<String> intents = new LinkedHashSet<>();
    for (ObjectInfo info : warehouse.store().list(warehouse.key(DIR))) {
      String name = info.key().substring(info.key().lastIndexOf('/') + 1);
      if (name.endsWith(DONE)) {
        done.put(name.substring(0, name.length() - DONE.length()), info.lastModified());
      } else if (name.endsWith(RECORD)) {
        records.add(name.substring(0, name.length() - RECORD.length()));
      } else if (name.endsWith(INTENT)) {
        intents.add(name.substring(0, name.length() - INTENT.length()));
      }
    }
    return new Listing(records, done, intents);
  }

  private String recordKey(String batchId) {
    return warehouse.key(DIR + "/" + batchId + RECORD);
  }

  private String intentKey(String batchId) {
    return warehouse.key(DIR + "/" + batchId + INTENT);
  }

  private String doneKey(String batchId) {
    return warehouse.key(DIR + "/" + batchId + DONE);
  }
}
