package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.cluster.ClusterConfig;
import dev.lancecommit.coordinator.cluster.ForwardSigner;
import dev.lancecommit.coordinator.cluster.TableOwnership;
import java.time.Duration;
import java.util.Objects;

/**
 * How the REST server takes part in a cluster: who owns which table, and how requests are forwarded to owners.
 *
 * @param ownership which instance owns which table
 * @param signer signs forwarded requests and checks the ones received (the cluster secret)
 * @param ownerWait how long a request waits for its table to have a reachable owner
 * @param forwardTimeout how long a forwarded request may take at the owner
 * @param connectTimeout connect timeout to another instance
 * @param maxHops how often one request may be forwarded
 * @param poolSize keep-alive connections per other instance
 */
public record ClusterOptions(TableOwnership ownership, ForwardSigner signer, Duration ownerWait,
    Duration forwardTimeout, Duration connectTimeout, int maxHops, int poolSize) {

  public ClusterOptions {
    Objects.requireNonNull(ownership, "ownership");
    Objects.requireNonNull(signer, "signer");
    Objects.requireNonNull(ownerWait, "ownerWait");
    Objects.requireNonNull(forwardTimeout, "forwardTimeout");
    Objects.requireNonNull(connectTimeout, "connectTimeout");
    if (maxHops < 1 || poolSize < 1) {
      throw new IllegalArgumentException("maxHops and poolSize must be positive");
    }
  }

  /** The options the cluster keys give, over {@code ownership}. */
  public static ClusterOptions of(TableOwnership ownership, ClusterConfig config) {
    return new ClusterOptions(ownership, new ForwardSigner(config.secret()), config.ownerWait(),
        config.forwardTimeout(), config.forwardConnectTimeout(), config.forwardMaxHops(), config.forwardPoolSize());
  }
}
