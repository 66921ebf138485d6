package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.credentials.AccessMode;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import dev.lancecommit.coordinator.credentials.InvalidTableLocationException;
import dev.lancecommit.coordinator.credentials.VendedCredentials;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.MeterRegistry;
import java.util.Locale;

/**
 * Counts vended credentials into {@code lance_credentials_vended_total{mode,outcome}}: mode {@code read} or
 * {@code read_write}, outcome {@code vended}, {@code invalid_location} (the table's location cannot be scoped) or
 * {@code failed} (the credential service refused or failed).
 */
public final class ObservedCredentialVendor implements CredentialVendor {
  static final String VENDED = "lance.credentials.vended";

  private final CredentialVendor delegate;
  private final Meter.MeterProvider<Counter> counters;

  public ObservedCredentialVendor(CredentialVendor delegate, MeterRegistry registry) {
    this.delegate = delegate;
    this.counters = Counter.builder(VENDED).description("Storage credentials vended, by access mode and outcome")
        .withRegistry(registry);
  }

  @Override
  public VendedCredentials vend(String principal, String tableLocation, AccessMode mode) {
    String outcome = "failed";
    try {
      VendedCredentials credentials = delegate.vend(principal, tableLocation, mode);
      outcome = "vended";
      return credentials;
    } catch (InvalidTableLocationException e) {
      outcome = "invalid_location";
      throw e;
    } finally {
      counters.withTags("mode", mode.name().toLowerCase(Locale.ROOT), "outcome", outcome).increment();
    }
  }

  @Override
  public void close() {
    delegate.close();
  }
}
