package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.publication.TableEventIntents;

/** A catalog change made and the announcement of its event. */
record Changed(TableEntry entry, TableEventIntents.Intent intent) {}
