package dev.lancecommit.coordinator.commit;

/**
 * The answer to a commit. A resubmitted transaction whose uuid already committed gets the same answer.
 *
 * @param version the committed version
 * @param readVersion the read_version the caller submitted
 * @param transactionUuid the transaction uuid
 * @param manifestPath the full URI of the manifest written for {@code version}
 * @param operation the Lance operation name, e.g. "Append"
 */
public record CommitResult(
    long version, long readVersion, String transactionUuid, String manifestPath, String operation) {}
