package dev.lancecommit.events.consumer;

/**
 * Counters of a {@link CommitEventConsumer} since it started.
 *
 * @param delivered events handed to the handler and checkpointed
 * @param duplicates events dropped because their version was at or below the checkpoint (or already waiting)
 * @param late events of versions that had been skipped past after a gap timeout, dropped
 * @param gapsSkipped deliveries made past a missing version after the gap timeout
 * @param invalid records that were neither commit events nor table events, skipped with a warning
 * @param tableEvents table (catalog) events sharing the topic, skipped quietly
 * @param handlerFailures handler calls or checkpoint writes that failed (and are retried)
 * @param pending events currently waiting (behind a gap or a failing handler)
 */
public record ConsumerStats(
    long delivered, long duplicates, long late, long gapsSkipped, long invalid, long tableEvents, long handlerFailures,
    int pending) {}
