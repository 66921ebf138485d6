package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.credentials.AccessMode;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The {@code storage_options} of DescribeTable and DeclareTable. With a vendor configured, credentials are vended
 * unless the request says {@code vend_credentials: false}: read-write when the caller may write or commit to the
 * table, read-only otherwise. Left unasked, only {@code s3://} tables get credentials (there is nothing to vend for a
 * local path); asked explicitly, a location the vendor cannot scope fails the request (400/13).
 */
final class CredentialVending {
  private final Optional<CredentialVendor> vendor;
  private final AccessControl access;

  CredentialVending(Optional<CredentialVendor> vendor, AccessControl access) {
    this.vendor = vendor;
    this.access = access;
  }

  /** What to vend, decided on the event loop (grants are in memory). */
  Plan plan(Principal caller, List<String> tableId, Optional<Boolean> vendCredentials) {
    if (vendor.isEmpty() || vendCredentials.equals(Optional.of(false))) {
      return Plan.NONE;
    }
    boolean writer = access.allows(caller, Permission.COMMIT, tableId)
        || access.allows(caller, Permission.WRITE, tableId);
    return new Plan(caller, writer ? AccessMode.READ_WRITE : AccessMode.READ, vendCredentials.isPresent());
  }

  /**
   * The storage options for the table at {@code location}; may call a remote credential service, so run it on the
   * blocking executor.
   */
  Map<String, String> storageOptions(Plan plan, String location) {
    if (plan.mode() == null || !plan.explicit() && !location.startsWith("s3://")) {
      return Map.of();
    }
    return vendor.orElseThrow().vend(plan.caller().name(), location, plan.mode()).storageOptions();
  }

  /**
   * @param caller who asks
   * @param mode what the credentials may do; null when nothing is vended
   * @param explicit whether the request set {@code vend_credentials}
   */
  record Plan(Principal caller, AccessMode mode, boolean explicit) {
    static final Plan NONE = new Plan(null, null, false);
  }
}
