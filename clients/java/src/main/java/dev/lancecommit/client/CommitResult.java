package dev.lancecommit.client;

/**
 * A committed transaction, as CommitTable answered it.
 *
 * @param version the version the transaction became
 * @param readVersion the read version of the transaction that was committed (after any rebuild by the client)
 * @param transactionUuid the transaction's uuid
 * @param manifestPath where the coordinator wrote the manifest of {@code version}
 * @param operation the operation's name, e.g. {@code Append}
 */
public record CommitResult(long version, long readVersion, String transactionUuid, String manifestPath,
    String operation) {}
