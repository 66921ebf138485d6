package dev.lancecommit.coordinator.storage;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.IOException;
import java.net.ConnectException;
import java.net.SocketException;
import java.net.SocketTimeoutException;
import org.apache.http.NoHttpResponseException;
import org.junit.jupiter.api.Test;
import software.amazon.awssdk.awscore.exception.AwsErrorDetails;
import software.amazon.awssdk.core.exception.SdkClientException;
import software.amazon.awssdk.core.exception.SdkException;
import software.amazon.awssdk.services.s3.model.S3Exception;

/** The classification table: may this failed request have been applied? */
class S3FailuresTest {
  private static SdkException status(int status, String code) {
    return S3Exception.builder()
        .statusCode(status)
        .message("status " + status)
        .awsErrorDetails(AwsErrorDetails.builder().errorCode(code).errorMessage("m").build())
        .build();
  }

  private static SdkException transport(IOException cause) {
    return SdkClientException.builder().message("Unable to execute HTTP request").cause(cause).build();
  }

  private static StoreException conditional(SdkException e) {
    return S3Failures.onConditionalPut("k", "s3://b/k", e);
  }

  @Test
  void preconditionFailedAndConditionalConflictMeanTheKeyIsTaken() {
    assertThat(conditional(status(412, "PreconditionFailed"))).isInstanceOf(ObjectAlreadyExistsException.class);
    assertThat(conditional(status(409, "ConditionalRequestConflict")))
        .isInstanceOf(ObjectAlreadyExistsException.class);
  }

  @Test
  void otherClientErrorsAreDefiniteRejections() {
    for (SdkException e : new SdkException[] {status(409, "BucketNotEmpty"), status(403, "AccessDenied"),
        status(400, "InvalidRequest")}) {
      assertThat(conditional(e)).isExactlyInstanceOf(StoreException.class);
    }
  }

  @Test
  void serverErrorsLeaveTheOutcomeOfAWriteOpen() {
    assertThat(conditional(status(500, "InternalError"))).isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(conditional(status(503, "SlowDown"))).isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(S3Failures.onWrite("put", "s3://b/k", status(502, "BadGateway")))
        .isInstanceOf(StoreOutcomeUnknownException.class);
  }

  @Test
  void throttlingMeansNotApplied() {
    assertThat(conditional(status(429, "TooManyRequests"))).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void transportFailuresAfterConnectingLeaveTheOutcomeOpen() {
    assertThat(conditional(transport(new SocketTimeoutException("Read timed out"))))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(conditional(transport(new SocketException("Connection reset"))))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(conditional(transport(new NoHttpResponseException("failed to respond"))))
        .isInstanceOf(StoreOutcomeUnknownException.class);
  }

  @Test
  void connectFailuresMeanNotApplied() {
    assertThat(conditional(transport(new ConnectException("Connection refused"))))
        .isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void aRetriedWriteIsOnlyNotAppliedIfEveryAttemptFailedToConnect() {
    SdkException refusedAfterTimeout = transport(new ConnectException("Connection refused"));
    refusedAfterTimeout.addSuppressed(transport(new SocketTimeoutException("Read timed out")));
    SdkException refusedTwice = transport(new ConnectException("Connection refused"));
    refusedTwice.addSuppressed(transport(new ConnectException("Connection refused")));

    assertThat(S3Failures.onWrite("put", "s3://b/k", refusedAfterTimeout))
        .isInstanceOf(StoreOutcomeUnknownException.class);
    assertThat(S3Failures.onWrite("put", "s3://b/k", refusedTwice)).isInstanceOf(StoreUnavailableException.class);
  }

  @Test
  void anEarlierAttemptRecordedWithoutItsCauseCannotBeProvenUnsent() {
    // This is how the SDK records earlier attempts: "Request attempt 1 failure: ..." with no cause attached.
    SdkException retried = transport(new ConnectException("Connection refused"));
    retried.addSuppressed(SdkClientException.create("Request attempt 1 failure: Connection refused"));

    assertThat(S3Failures.onWrite("put", "s3://b/k", retried)).isInstanceOf(StoreOutcomeUnknownException.class);
  }

  @Test
  void readsNeverReportAnUnknownOutcome() {
    assertThat(S3Failures.onRead("get", "s3://b/k", status(500, "InternalError")))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(S3Failures.onRead("get", "s3://b/k", transport(new SocketTimeoutException("Read timed out"))))
        .isInstanceOf(StoreUnavailableException.class);
    assertThat(S3Failures.onRead("get", "s3://b/k", status(403, "AccessDenied")))
        .isExactlyInstanceOf(StoreException.class);
  }
}
