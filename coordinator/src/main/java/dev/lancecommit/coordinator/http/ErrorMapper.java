package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.PermissionDeniedException;
import dev.lancecommit.coordinator.auth.UnauthenticatedException;
import dev.lancecommit.coordinator.commit.CommitThrottledException;
import dev.lancecommit.coordinator.commit.InvalidCommitRequestException;
import dev.lancecommit.coordinator.commit.TableNotOwnedException;
import dev.lancecommit.coordinator.commit.VersionConflictException;
import dev.lancecommit.coordinator.credentials.CredentialVendingException;
import dev.lancecommit.coordinator.credentials.InvalidTableLocationException;
import dev.lancecommit.coordinator.namespace.CatalogConcurrentUpdateException;
import dev.lancecommit.coordinator.namespace.InvalidCatalogInputException;
import dev.lancecommit.coordinator.namespace.NamespaceAlreadyExistsException;
import dev.lancecommit.coordinator.namespace.NamespaceNotEmptyException;
import dev.lancecommit.coordinator.namespace.NamespaceNotFoundException;
import dev.lancecommit.coordinator.namespace.TableAlreadyExistsException;
import dev.lancecommit.coordinator.namespace.TableDropRefusedException;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersionNotFoundException;
import dev.lancecommit.coordinator.refs.BranchAlreadyExistsException;
import dev.lancecommit.coordinator.refs.BranchNotFoundException;
import dev.lancecommit.coordinator.refs.InvalidRefException;
import dev.lancecommit.coordinator.refs.RefInUseException;
import dev.lancecommit.coordinator.refs.RefLocks;
import dev.lancecommit.coordinator.refs.TagAlreadyExistsException;
import dev.lancecommit.coordinator.refs.TagNotFoundException;
import dev.lancecommit.coordinator.storage.StoreOutcomeUnknownException;
import dev.lancecommit.coordinator.storage.StoreUnavailableException;
import dev.lancecommit.coordinator.table.CommitStateUnknownException;
import dev.lancecommit.coordinator.table.VersionNotFoundException;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.coordinator.batch.BatchBrokenException;
import dev.lancecommit.coordinator.batch.BatchMemberException;
import dev.lancecommit.coordinator.batch.BatchPendingException;
import dev.lancecommit.rules.ColumnNotFoundException;
import dev.lancecommit.rules.SchemaContractException;
import dev.lancecommit.format.UnsupportedFeatureException;
import dev.lancecommit.rules.UnsupportedOperationTypeException;
import dev.lancecommit.rules.conflict.CommitConflictException;
import io.vertx.core.json.JsonObject;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.RejectedExecutionException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** The one place that decides which HTTP status and spec error code an exception becomes (ARCHITECTURE.md). */
public final class ErrorMapper {
  /** Error body member of a commit conflict (409/14, 409/19): the version the transaction conflicts with. */
  public static final String CONFLICTING_VERSION = "conflicting_version";
  /** Error body member of a commit conflict: the operation of {@link #CONFLICTING_VERSION}, e.g. "Delete". */
  public static final String CONFLICTING_OPERATION = "conflicting_operation";
  /** Error body member of a commit conflict: the name of the conflict rule that decided it. */
  public static final String CONFLICT_RULE = "conflict_rule";
  /** Error body member of a failed atomic batch: the index of the member that failed it. */
  public static final String BATCH_MEMBER = "batch_member";

  private static final Logger LOG = LoggerFactory.getLogger(ErrorMapper.class);

  private ErrorMapper() {}

  public static ApiException toApiException(Throwable failure) {
    Throwable t = unwrap(failure);
    if (t instanceof ApiException api) {
      return api;
    }
    if (t instanceof UnauthenticatedException) {
      return new ApiException(401, ErrorCode.UNAUTHENTICATED, "Authentication required", t.getMessage());
    }
    if (t instanceof PermissionDeniedException) {
      return new ApiException(403, ErrorCode.PERMISSION_DENIED, "Permission denied", t.getMessage());
    }
    if (t instanceof InvalidTransactionException || t instanceof InvalidCatalogInputException) {
      return ApiException.invalidInput(t.getMessage());
    }
    if (t instanceof InvalidCommitRequestException e) {
      return ApiException.invalidInput(e.getMessage(), e.detail());
    }
    if (t instanceof InvalidTableLocationException) {
      return ApiException.invalidInput("Cannot vend credentials for this table location", t.getMessage());
    }
    if (t instanceof CredentialVendingException) {
      LOG.warn("Credential vending failed: {}", t.toString());
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Credential vending failed",
          t.getMessage() + ". Retry later, or ask without vend_credentials and bring your own storage credentials.");
    }
    if (t instanceof UnsupportedOperationTypeException e) {
      return new ApiException(400, ErrorCode.UNSUPPORTED, e.getMessage(), e.reason().orElse(
          "Operation " + e.operation() + " is well-formed but this coordinator cannot apply it yet"));
    }
    if (t instanceof SchemaContractException e) {
      return new ApiException(400, ErrorCode.TABLE_SCHEMA_VALIDATION_ERROR, e.getMessage(),
          e.getMessage() + " (field " + e.fieldPath() + ")");
    }
    if (t instanceof BatchMemberException e) {
      ApiException member = toApiException(e.getCause());
      String which = "Batch member " + e.index() + " (table " + String.join("$", e.tableId()) + ")";
      return new ApiException(member.httpStatus(), member.code(), which + ": " + member.error(),
          which + " failed, so nothing of the batch was applied: " + member.detail())
          .withFields(member.fields()).withFields(Map.of(BATCH_MEMBER, e.index()));
    }
    if (t instanceof BatchPendingException e) {
      LOG.warn("Batch {} pending: {}", e.batchId(), e.getMessage());
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Batch " + e.batchId() + " not settled yet",
          e.getMessage());
    }
    if (t instanceof BatchBrokenException) {
      return new ApiException(409, ErrorCode.INVALID_TABLE_STATE, "Batch could not be completed", t.getMessage());
    }
    if (t instanceof ColumnNotFoundException) {
      return new ApiException(404, ErrorCode.TABLE_COLUMN_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof NamespaceNotFoundException) {
      return new ApiException(404, ErrorCode.NAMESPACE_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof TableNotFoundException) {
      return new ApiException(404, ErrorCode.TABLE_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof TableVersionNotFoundException || t instanceof VersionNotFoundException) {
      return new ApiException(404, ErrorCode.TABLE_VERSION_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof TagNotFoundException) {
      return new ApiException(404, ErrorCode.TABLE_TAG_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof TagAlreadyExistsException) {
      return new ApiException(409, ErrorCode.TABLE_TAG_ALREADY_EXISTS, t.getMessage(), t.getMessage());
    }
    if (t instanceof BranchNotFoundException) {
      return new ApiException(404, ErrorCode.TABLE_BRANCH_NOT_FOUND, t.getMessage(), t.getMessage());
    }
    if (t instanceof BranchAlreadyExistsException) {
      return new ApiException(409, ErrorCode.TABLE_BRANCH_ALREADY_EXISTS, t.getMessage(), t.getMessage());
    }
    if (t instanceof InvalidRefException || t instanceof RefInUseException) {
      return ApiException.invalidInput(t.getMessage());
    }
    if (t instanceof RefLocks.RefsBusyException) {
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Table refs busy", t.getMessage());
    }
    if (t instanceof NamespaceAlreadyExistsException) {
      return new ApiException(409, ErrorCode.NAMESPACE_ALREADY_EXISTS, t.getMessage(), t.getMessage());
    }
    if (t instanceof NamespaceNotEmptyException) {
      return new ApiException(409, ErrorCode.NAMESPACE_NOT_EMPTY, "Namespace is not empty", t.getMessage());
    }
    if (t instanceof TableAlreadyExistsException) {
      return new ApiException(409, ErrorCode.TABLE_ALREADY_EXISTS, t.getMessage(), t.getMessage());
    }
    if (t instanceof CatalogConcurrentUpdateException) {
      return new ApiException(409, ErrorCode.CONCURRENT_MODIFICATION, "Concurrent catalog update", t.getMessage());
    }
    if (t instanceof TableDropRefusedException) {
      return new ApiException(409, ErrorCode.INVALID_TABLE_STATE, "Table files cannot be deleted", t.getMessage());
    }
    if (t instanceof VersionConflictException e) {
      return new ApiException(409, ErrorCode.CONCURRENT_MODIFICATION, e.getMessage(), e.detail());
    }
    if (t instanceof CommitConflictException e) {
      return conflict(e);
    }
    if (t instanceof UnsupportedFeatureException) {
      return new ApiException(409, ErrorCode.INVALID_TABLE_STATE, "Unsupported table feature", t.getMessage());
    }
    if (t instanceof CommitThrottledException) {
      return new ApiException(429, ErrorCode.THROTTLING, "Too many commits queued for this table", t.getMessage());
    }
    if (t instanceof TableNotOwnedException) {
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Table handed over to another coordinator",
          t.getMessage() + ". Nothing was written; resubmitting the same request is safe.");
    }
    if (t instanceof CommitStateUnknownException e) {
      LOG.warn("Commit state unknown for version {}: {}", e.version(), e.toString());
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Commit outcome unknown",
          "The manifest for version " + e.version() + " may or may not have been written: " + e.getMessage()
              + ". Resubmitting the same transaction (same uuid) is safe.");
    }
    if (t instanceof StoreUnavailableException || t instanceof StoreOutcomeUnknownException) {
      LOG.warn("Object store unavailable: {}", t.toString());
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Object store unavailable", t.getMessage());
    }
    if (t instanceof RejectedExecutionException) {
      LOG.warn("Blocking executor refused work: {}", t.toString());
      return new ApiException(503, ErrorCode.SERVICE_UNAVAILABLE, "Server busy",
          "The coordinator's worker pool is saturated or shutting down; retry later");
    }
    LOG.error("Unexpected failure", t);
    return ApiException.internal(t.getClass().getSimpleName() + (t.getMessage() == null ? "" : ": " + t.getMessage()));
  }

  /**
   * A conflict's answer names the conflicting version and operation twice: in {@link #CONFLICTING_VERSION} and
   * {@link #CONFLICTING_OPERATION}, which the clients (Java ErrorResponses, Python errors.py) read, and in the text of
   * {@code error} and {@code detail}, which they fall back to for an older coordinator's answer.
   */
  private static ApiException conflict(CommitConflictException e) {
    String kind = e.retryable() ? "Retryable" : "Incompatible";
    String error = kind + " commit conflict with version " + e.conflictingVersion() + " ("
        + e.conflictingOperation() + ")";
    String detail = e.getMessage() + "; conflicting version " + e.conflictingVersion() + ", operation "
        + e.conflictingOperation() + ", rule " + e.rule()
        + (e.retryable() ? "; rebuild the transaction on the latest version and retry" : "; do not retry");
    Map<String, Object> fields = new LinkedHashMap<>();
    fields.put(CONFLICTING_VERSION, e.conflictingVersion());
    fields.put(CONFLICTING_OPERATION, e.conflictingOperation());
    fields.put(CONFLICT_RULE, e.rule());
    return new ApiException(409, e.retryable() ? ErrorCode.CONCURRENT_MODIFICATION : ErrorCode.INVALID_TABLE_STATE,
        error, detail).withFields(fields);
  }

  static Throwable unwrap(Throwable failure) {
    Throwable t = failure;
    while ((t instanceof CompletionException || t instanceof ExecutionException) && t.getCause() != null) {
      t = t.getCause();
    }
    return t;
  }

  /** The spec's ErrorResponse body, followed by the answer's own {@link ApiException#fields()}. */
  public static JsonObject body(ApiException e, String instance) {
    JsonObject body = new JsonObject()
        .put("error", e.error())
        .put("code", e.code())
        .put("detail", e.detail())
        .put("instance", instance);
    e.fields().forEach(body::put);
    return body;
  }
}
