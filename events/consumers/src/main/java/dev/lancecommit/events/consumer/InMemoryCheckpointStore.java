package dev.lancecommit.events.consumer;

import java.util.Map;
import java.util.OptionalLong;
import java.util.TreeMap;
import java.util.concurrent.ConcurrentHashMap;

/** Checkpoints held in memory only: every restart starts from scratch. For tests and throw-away consumers. */
public final class InMemoryCheckpointStore implements TableCheckpointStore {
  private final ConcurrentHashMap<String, Long> versions = new ConcurrentHashMap<>();

  @Override
  public OptionalLong checkpoint(String tableUuid) {
    Long version = versions.get(tableUuid);
    return version == null ? OptionalLong.empty() : OptionalLong.of(version);
  }

  @Override
  public synchronized void advance(String tableUuid, long version) {
    TableCheckpointStore.checkAdvance(tableUuid, version, checkpoint(tableUuid));
    versions.put(tableUuid, version);
  }

  @Override
  public Map<String, Long> checkpoints() {
    return Map.copyOf(new TreeMap<>(versions));
  }
}
