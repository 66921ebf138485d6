package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import java.util.Objects;
import java.util.Optional;
import java.util.concurrent.Executor;

/**
 * Settings of the REST server.
 *
 * <p>{@code maxBodyBytes}: larger request bodies get 413 (default 64 MiB; a Lance transaction listing many
 * fragments stays far below). {@code blockingExecutor}: where catalog and storage calls run; when absent they run
 * through {@code Vertx.executeBlocking} on Vert.x's worker pool. {@code accessControl}: authentication and grants;
 * {@link AccessControl#disabled()} (the default) serves everyone as {@code anonymous}.
 */
public final class RestServerOptions {
  public static final long DEFAULT_MAX_BODY_BYTES = 64L * 1024 * 1024;

  private final long maxBodyBytes;
  private final Executor blockingExecutor;
  private final AccessControl accessControl;

  private RestServerOptions(Builder builder) {
    this.maxBodyBytes = builder.maxBodyBytes;
    this.blockingExecutor = builder.blockingExecutor;
    this.accessControl = builder.accessControl;
  }

  public static RestServerOptions defaults() {
    return builder().build();
  }

  public static Builder builder() {
    return new Builder();
  }

  public long maxBodyBytes() {
    return maxBodyBytes;
  }

  public Optional<Executor> blockingExecutor() {
    return Optional.ofNullable(blockingExecutor);
  }

  public AccessControl accessControl() {
    return accessControl;
  }

  public static final class Builder {
    private long maxBodyBytes = DEFAULT_MAX_BODY_BYTES;
    private Executor blockingExecutor;
    private AccessControl accessControl = AccessControl.disabled();

    private Builder() {}

    public Builder maxBodyBytes(long maxBodyBytes) {
      if (maxBodyBytes <= 0) {
        throw new IllegalArgumentException("maxBodyBytes must be positive: " + maxBodyBytes);
      }
      this.maxBodyBytes = maxBodyBytes;
      return this;
    }

    public Builder blockingExecutor(Executor blockingExecutor) {
      this.blockingExecutor = blockingExecutor;
      return this;
    }

    public Builder accessControl(AccessControl accessControl) {
      this.accessControl = Objects.requireNonNull(accessControl, "accessControl");
      return this;
    }

    public RestServerOptions build() {
      return new RestServerOptions(this);
    }
  }
}
