package dev.lancecommit.events.consumer;

import dev.lancecommit.events.CommitEvent;
import org.apache.kafka.common.TopicPartition;

/** An event read from Kafka and not yet delivered, with where it came from and when it arrived. */
record Pending(CommitEvent event, TopicPartition partition, long offset, long arrivedNanos) {}
