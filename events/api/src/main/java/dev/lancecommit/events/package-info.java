/**
 * Commit events: one CloudEvent ({@value dev.lancecommit.events.CommitEvents#TYPE}) per committed table version,
 * published to Kafka with the table id (joined with {@code $}) as key.
 *
 * <p>Consumer contract: delivery is at least once, so consumers drop duplicates by event id ({@code
 * tableUuid:version}). Events of one table share a partition and arrive in publish order, but an event whose publish
 * failed is republished later (when the commit is resubmitted), so a consumer that needs strict version order must
 * order by {@code version} per table rather than rely on offsets alone.
 */
package dev.lancecommit.events;
