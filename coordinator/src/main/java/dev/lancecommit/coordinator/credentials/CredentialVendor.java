package dev.lancecommit.coordinator.credentials;

/**
 * Hands writers and readers storage credentials scoped to one table. Implementations may call a remote service
 * (STS): call {@link #vend} from a blocking executor, never from a Vert.x event loop.
 */
public interface CredentialVendor extends AutoCloseable {

  /**
   * Credentials for {@code principal} on the table at {@code tableLocation}.
   *
   * @param principal who asks (recorded in the session name for audit); must not be blank
   * @param tableLocation the table's root, {@code s3://bucket/prefix/table.lance}
   * @param mode what the credentials may do there
   * @throws InvalidTableLocationException if the location cannot be scoped safely; nothing is vended
   * @throws CredentialVendingException if the credential service refused or failed
   */
  VendedCredentials vend(String principal, String tableLocation, AccessMode mode);

  /** Releases connections; vending after close is not supported. */
  @Override
  default void close() {}
}
