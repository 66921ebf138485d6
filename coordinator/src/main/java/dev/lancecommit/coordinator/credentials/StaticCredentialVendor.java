package dev.lancecommit.coordinator.credentials;

import java.util.Objects;

/**
 * Hands every caller the same configured keys, with no expiry: the mode for S3-compatible stores that have no STS.
 *
 * <p><b>It cannot deny anything.</b> Whatever the configured keys may do, every writer may do, including writing
 * final manifest names ({@code _versions/*.manifest}) and so publishing a version behind the coordinator's back,
 * and {@link AccessMode#READ} is not enforced. Scope the keys in the store itself (a user limited to the
 * warehouse bucket) and use it only where writers are trusted; prefer {@link StsCredentialVendor} wherever the
 * store has STS. Locations are still checked, so a bad location is refused the same way in both modes.
 */
public final class StaticCredentialVendor implements CredentialVendor {
  private final VendedCredentials credentials;

  /**
   * @param accessKeyId access key to hand out
   * @param secretAccessKey its secret
   * @param region {@code aws_region} to hand out
   * @param endpoint {@code aws_endpoint} to hand out; null for AWS S3 itself
   */
  public StaticCredentialVendor(String accessKeyId, String secretAccessKey, String region, String endpoint) {
    this.credentials = new VendedCredentials(accessKeyId, secretAccessKey, null, region, endpoint, null);
  }

  @Override
  public VendedCredentials vend(String principal, String tableLocation, AccessMode mode) {
    if (principal == null || principal.isBlank()) {
      throw new IllegalArgumentException("principal must not be blank");
    }
    Objects.requireNonNull(mode, "mode");
    S3TableLocation.parse(tableLocation);
    return credentials;
  }
}
