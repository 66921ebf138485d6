package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.credentials.AccessMode;
import dev.lancecommit.coordinator.credentials.CredentialVendor;
import dev.lancecommit.coordinator.credentials.VendedCredentials;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

/**
 * Wraps a real vendor, records every call (who, where, which mode) and can be made to fail with a given exception,
 * the way a credential service that is down fails.
 */
final class RecordingVendor implements CredentialVendor {
  record Call(String principal, String location, AccessMode mode, String thread) {}

  private final CredentialVendor delegate;
  private final List<Call> calls = new CopyOnWriteArrayList<>();
  private volatile RuntimeException failure;

  RecordingVendor(CredentialVendor delegate) {
    this.delegate = delegate;
  }

  @Override
  public VendedCredentials vend(String principal, String tableLocation, AccessMode mode) {
    calls.add(new Call(principal, tableLocation, mode, Thread.currentThread().getName()));
    RuntimeException fail = failure;
    if (fail != null) {
      throw fail;
    }
    return delegate.vend(principal, tableLocation, mode);
  }

  /** Makes every later call throw {@code failure} (null: work again). */
  void failWith(RuntimeException failure) {
    this.failure = failure;
  }

  List<Call> calls() {
    return List.copyOf(calls);
  }
}
