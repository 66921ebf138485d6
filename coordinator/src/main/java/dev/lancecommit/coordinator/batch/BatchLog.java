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
import java.util.HashSet;
import java.util.List;
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

  private final StorageLocation warehouse;

  BatchLog(StorageLocation warehouse) {
    this.warehouse = warehouse;
  }

  /** Outcome of writing a record. */
  enum Written { WRITTEN, ABSENT, UNKNOWN }

  /**
   * Writes the record with put-if-absent. WRITTEN: it is there (now or from an earlier attempt); ABSENT: it
   * certainly is not; UNKNOWN: the store answered neither way (write and read-back failed).
   */
  Written write(BatchRecord record) {
    byte[] bytes = record.encode();
    String key = recordKey(record.batchId());
    try {
      warehouse.store().putIfAbsent(key, bytes);
      return Written.WRITTEN;
    } catch (ObjectAlreadyExistsException e) {
      // A batch id is a fresh uuid: only our own earlier attempt can hold it.
      return read(record.batchId()).map(r -> Arrays.equals(r.encode(), bytes)).orElse(false)
          ? Written.WRITTEN : Written.ABSENT;
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
      return read(batchId).isPresent() ? Written.WRITTEN : Written.ABSENT;
    } catch (StoreException e) {
      return Written.UNKNOWN;
    }
  }

  Optional<BatchRecord> read(String batchId) {
    return warehouse.store().get(recordKey(batchId)).map(BatchRecord::decode);
  }

  /** Marks a batch finished (every member version written). A plain put: writing it twice is harmless. */
  void markDone(String batchId, Instant at) {
    warehouse.store().put(doneKey(batchId), at.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Every recorded batch without its done marker. */
  List<BatchRecord> unfinished() {
    Set<String> done = new HashSet<>();
    List<String> records = new ArrayList<>();
    for (ObjectInfo info : warehouse.store().list(warehouse.key(DIR))) {
      String name = info.key().substring(info.key().lastIndexOf('/') + 1);
      if (name.endsWith(DONE)) {
        done.add(name.substring(0, name.length() - DONE.length()));
      } else if (name.endsWith(RECORD)) {
        records.add(name.substring(0, name.length() - RECORD.length()));
      }
    }
    List<BatchRecord> out = new ArrayList<>();
    for (String id : records) {
      if (!done.contains(id)) {
        read(id).ifPresent(out::add);
      }
    }
    return out;
  }

  /** The kept record whose members are exactly these transactions (in request order), if any. */
  Optional<BatchRecord> findByTransactions(List<String> transactionUuids) {
    for (ObjectInfo info : warehouse.store().list(warehouse.key(DIR))) {
      String name = info.key().substring(info.key().lastIndexOf('/') + 1);
      if (!name.endsWith(RECORD)) {
        continue;
      }
      Optional<BatchRecord> record = read(name.substring(0, name.length() - RECORD.length()));
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
    for (ObjectInfo info : warehouse.store().list(warehouse.key(DIR))) {
      String name = info.key().substring(info.key().lastIndexOf('/') + 1);
      if (name.endsWith(DONE) && info.lastModified().isBefore(now.minus(retention))) {
        String id = name.substring(0, name.length() - DONE.length());
        try {
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

  private String recordKey(String batchId) {
    return warehouse.key(DIR + "/" + batchId + RECORD);
  }

  private String doneKey(String batchId) {
    return warehouse.key(DIR + "/" + batchId + DONE);
  }
}
