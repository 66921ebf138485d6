package dev.lancecommit.coordinator.storage;

import java.net.ConnectException;
import java.net.NoRouteToHostException;
import java.net.UnknownHostException;
import java.util.IdentityHashMap;
import java.util.Map;
import org.apache.http.conn.ConnectTimeoutException;
import org.apache.http.conn.ConnectionPoolTimeoutException;
import software.amazon.awssdk.awscore.exception.AwsServiceException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.core.exception.SdkServiceException;

/**
 * Maps SDK failures onto the store's exceptions. The question is always: could the request have been applied?
 * Only failures to open a connection prove it was not; a timeout, reset or 5xx after sending leaves it open.
 */
final class S3Failures {
  static final String CONDITIONAL_REQUEST_CONFLICT = "ConditionalRequestConflict";

  private S3Failures() {}

  /** Failure of a read: nothing can have been applied, so every transport problem means "unavailable". */
  static StoreException onRead(String operation, String uri, SdkException e) {
    if (e instanceof SdkServiceException service && service.statusCode() < 500 && !throttled(service)) {
      return rejected(operation, uri, service);
    }
    return new StoreUnavailableException(operation + " " + uri + " failed: " + e.getMessage(), e);
  }

  /** Failure of a write or delete that may have reached the server. */
  static StoreException onWrite(String operation, String uri, SdkException e) {
    if (e instanceof SdkServiceException service && throttled(service)) {
      return new StoreUnavailableException(operation + " " + uri + " was throttled: " + e.getMessage(), e);
    }
    if (e instanceof SdkServiceException service && service.statusCode() < 500) {
      return rejected(operation, uri, service);
    }
    if (certainlyNotSent(e)) {
      return new StoreUnavailableException(operation + " " + uri + " was not sent: " + e.getMessage(), e);
    }
    return new StoreOutcomeUnknownException(
        operation + " " + uri + " may or may not have been applied: " + e.getMessage(), e);
  }

  /** Failure of a put with {@code If-None-Match: *}. */
  static StoreException onConditionalPut(String key, String uri, SdkException e) {
    if (e instanceof SdkServiceException service) {
      int status = service.statusCode();
      if (status == 412 || (status == 409 && CONDITIONAL_REQUEST_CONFLICT.equals(errorCode(service)))) {
        return new ObjectAlreadyExistsException(key);
      }
    }
    return onWrite("putIfAbsent", uri, e);
  }

  private static StoreException rejected(String operation, String uri, SdkServiceException e) {
    String code = errorCode(e);
    return new StoreException(operation + " " + uri + " rejected with HTTP " + e.statusCode()
        + (code == null ? "" : " " + code) + ": " + e.getMessage(), e);
  }

  /** 429: the request was refused before being processed. */
  private static boolean throttled(SdkServiceException e) {
    return e.statusCode() == 429;
  }

  private static String errorCode(SdkServiceException e) {
    if (e instanceof AwsServiceException aws && aws.awsErrorDetails() != null) {
      return aws.awsErrorDetails().errorCode();
    }
    return null;
  }

  /**
   * True only if the failure, and every earlier attempt the SDK recorded as suppressed, failed while opening a
   * connection, i.e. before any byte of the request was written. The SDK records earlier attempts of a retried call
   * as suppressed exceptions carrying only a message, so a write that was retried can never be proven unsent and is
   * reported as outcome unknown; the no-retry conditional put does not have that problem.
   */
  static boolean certainlyNotSent(Throwable failure) {
    if (!hasConnectFailure(failure)) {
      return false;
    }
    for (Throwable earlier : failure.getSuppressed()) {
      if (!certainlyNotSent(earlier)) {
        return false;
      }
    }
    return true;
  }

  private static boolean hasConnectFailure(Throwable failure) {
    Map<Throwable, Boolean> seen = new IdentityHashMap<>();
    for (Throwable t = failure; t != null && seen.put(t, Boolean.TRUE) == null; t = t.getCause()) {
      if (t instanceof ConnectException
          || t instanceof NoRouteToHostException
          || t instanceof UnknownHostException
          || t instanceof ConnectTimeoutException
          || t instanceof ConnectionPoolTimeoutException) {
        return true;
      }
    }
    return false;
  }
}
