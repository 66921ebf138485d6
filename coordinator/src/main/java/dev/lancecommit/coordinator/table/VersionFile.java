package dev.lancecommit.coordinator.table;

import java.time.Instant;

/**
 * A committed version as found in a table's {@code _versions/} directory.
 *
 * @param version the version number
 * @param manifestUri full URI of the manifest file
 * @param size manifest size in bytes
 * @param lastModified when the store says the manifest was written (the commit time)
 */
public record VersionFile(long version, String manifestUri, long size, Instant lastModified) {}
