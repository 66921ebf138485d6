package dev.lancecommit.coordinator.cluster;

import static org.apache.kafka.common.config.ConfigDef.Range.atLeast;
import static org.apache.kafka.common.config.ConfigDef.Range.between;

import dev.lancecommit.config.Config;
import dev.lancecommit.config.ConfigKey;
import dev.lancecommit.config.ConfigKeys;
import dev.lancecommit.config.ConfigurationException;
import java.net.URI;
import java.net.URISyntaxException;
import java.time.Duration;
import java.util.Locale;
import java.util.Optional;
import org.apache.kafka.common.config.ConfigDef;
import org.apache.kafka.common.config.ConfigDef.NonEmptyString;
import org.apache.kafka.common.config.ConfigException;

/**
 * Cluster mode: several coordinators on one warehouse and one Kafka cluster, each table owned by one of them through
 * Kafka's consumer-group protocol. Off by default; a single coordinator behaves exactly as without these keys.
 */
public final class ClusterConfig {
  private static final ConfigKeys KEYS = new ConfigKeys();
  /** Shortest cluster secret accepted: it signs forwarded requests, so it must not be guessable. */
  static final int MIN_SECRET_LENGTH = 16;

  public static final ConfigKey<Boolean> ENABLED = KEYS.bool("cluster.enabled", false,
      "Run as one member of a cluster of coordinators sharing the warehouse and the Kafka cluster: each table "
          + "belongs to one partition of the events topic (its id hashed as Kafka's default partitioner hashes the "
          + "event key), partitions are owned through Kafka's consumer-group protocol, and a commit reaching an "
          + "instance that does not own its table is forwarded to the owner. Needs cluster.advertised-url, "
          + "cluster.secret and Kafka.");
  public static final ConfigKey<String> ADVERTISED_URL = KEYS.string("cluster.advertised-url", "",
      ConfigDef.LambdaValidator.with((name, value) -> {
        String url = ((String) value).trim();
        if (!url.isEmpty()) {
          checkUrl(name, url);
        }
      }, () -> "empty or an http(s)://host:port URL"),
      "URL at which the other instances reach this one's REST API (http://host:port, no path), e.g. the pod IP "
          + "and port; required in cluster mode. It is advertised to the group with this member's subscription.");
  public static final ConfigKey<String> GROUP = KEYS.string("cluster.group", "lance-commit-coordinator",
      new NonEmptyString(),
      "Kafka consumer group the instances of one cluster join (one group per warehouse). The group only owns "
          + "partitions, it never reads or commits offsets.");
  public static final ConfigKey<String> SECRET = KEYS.secret("cluster.secret",
      "Shared secret of the cluster's instances (at least " + MIN_SECRET_LENGTH + " characters), required in "
          + "cluster mode: every forwarded request is signed with it (HMAC-SHA256 over the request, body included), "
          + "and a request naming a forwarded principal without a valid signature is refused with 401.");
  public static final ConfigKey<String> INSTANCE_ID = KEYS.string("cluster.instance-id", "",
      "Static membership (Kafka's group.instance.id): an instance restarted with the same id within the session "
          + "timeout gets its partitions back without a rebalance. Empty (default): dynamic membership. Give each "
          + "instance its own stable id (e.g. a StatefulSet pod name), never two at once.");
  public static final ConfigKey<Duration> SESSION_TIMEOUT_MS = KEYS.millis("cluster.session-timeout.ms", 6000,
      atLeast(1000),
      "How long Kafka waits for an instance's heartbeat before giving its partitions to the others (the broker's "
          + "group.min.session.timeout.ms, 6000 by default, is the lowest it accepts). A killed owner's tables "
          + "are served again after about this long plus a rebalance.");
  public static final ConfigKey<Duration> HEARTBEAT_INTERVAL_MS = KEYS.millis("cluster.heartbeat-interval.ms",
      1000, atLeast(100),
      "How often an instance heartbeats to the group coordinator; below a third of the session timeout.");
  public static final ConfigKey<Duration> OWNER_WAIT_MS = KEYS.millis("cluster.owner-wait.ms", 15_000,
      atLeast(0),
      "How long a commit waits for its table's partition to have a reachable owner (during a rebalance, or "
          + "while a killed owner's session runs out) before it is answered 503/17. Keep it above the session "
          + "timeout so a failover is waited out.");
  public static final ConfigKey<Duration> FORWARD_TIMEOUT_MS = KEYS.millis("cluster.forward-timeout.ms", 60_000,
      atLeast(100),
      "How long a forwarded request may take at the owner. Past it the caller gets 503/17 (outcome unknown: "
          + "resubmitting the same transaction is safe).");
  public static final ConfigKey<Duration> FORWARD_CONNECT_TIMEOUT_MS = KEYS.millis(
      "cluster.forward-connect-timeout.ms", 2000, atLeast(1),
      "Connect timeout to another instance; an owner that cannot be reached is waited for (cluster.owner-wait.ms).");
  public static final ConfigKey<Integer> FORWARD_MAX_HOPS = KEYS.integer("cluster.forward-max-hops", 3,
      between(1, 10),
      "How often one request may be forwarded between instances (when ownership moves while it travels); past "
          + "it, it waits where it is for an owner.");
  public static final ConfigKey<Integer> FORWARD_POOL_SIZE = KEYS.integer("cluster.forward-pool-size", 64,
      atLeast(1), "Keep-alive connections kept to each other instance for forwarded requests.");
  public static final ConfigKey<Duration> HANDOVER_DRAIN_MS = KEYS.millis("cluster.handover-drain.ms", 5000,
      atLeast(0),
      "When a partition moves away in a rebalance (scale out, rolling restart, shutdown), how long the instance "
          + "giving it up waits for its commits under way to finish and their events to be published before it "
          + "lets go; whatever is left is published by the new owner's reconciler.");
  public static final ConfigKey<Duration> BATCH_HOLD_LEASE_MS = KEYS.millis("cluster.batch-hold-lease.ms", 10_000,
      atLeast(100),
      "An atomic batch whose tables other instances own holds their lanes there; the instance coordinating it renews "
          + "each hold every third of this lease. A hold not renewed for this long (the coordinating instance died or "
          + "cannot be reached) is ended by its owner: if the batch was not recorded yet the owner fences it (the "
          + "batch then writes nothing), otherwise it writes its member's version itself (roll forward).");

  public static final ConfigKey<Boolean> TEST_ABANDON_HOLDS_ON_CLOSE = KEYS.bool(
      "cluster.test.abandon-holds-on-close", false,
      "Testing only: on shutdown, leave the lane holds of batches other instances coordinate undecided (neither fenced "
          + "nor written), as a killed process would, so a fault test can stop an owner in the middle of a batch. "
          + "Leave false.");

  private final Config values;

  private ClusterConfig(Config values) {
    this.values = values;
  }

  /** The cluster keys. */
  public static ConfigKeys keys() {
    return KEYS;
  }

  /**
   * Reads the cluster keys from the coordinator's configuration and checks them together.
   *
   * @throws ConfigurationException naming the key that is missing or inconsistent
   */
  public static ClusterConfig from(Config config) {
    ClusterConfig cluster = new ClusterConfig(config);
    if (cluster.enabled()) {
      if (config.get(ADVERTISED_URL).isBlank()) {
        throw new ConfigurationException(ADVERTISED_URL.name(),
            "cluster.enabled needs " + ADVERTISED_URL.name() + ": the URL other instances reach this one at");
      }
      if (config.get(SECRET).length() < MIN_SECRET_LENGTH) {
        throw new ConfigurationException(SECRET.name(), "cluster.enabled needs " + SECRET.name() + " of at least "
            + MIN_SECRET_LENGTH + " characters, the same on every instance");
      }
      if (cluster.heartbeatInterval().multipliedBy(3).compareTo(cluster.sessionTimeout()) > 0) {
        throw new ConfigurationException(HEARTBEAT_INTERVAL_MS.name(), HEARTBEAT_INTERVAL_MS.name() + " ("
            + cluster.heartbeatInterval().toMillis() + ") must be at most a third of " + SESSION_TIMEOUT_MS.name()
            + " (" + cluster.sessionTimeout().toMillis() + ")");
      }
    }
    return cluster;
  }

  public boolean enabled() {
    return values.get(ENABLED);
  }

  /** This instance's URL as the others reach it, without a trailing slash. */
  public String advertisedUrl() {
    String url = values.get(ADVERTISED_URL).trim();
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }

  public String group() {
    return values.get(GROUP).trim();
  }

  public String secret() {
    return values.get(SECRET);
  }

  public Optional<String> instanceId() {
    String id = values.get(INSTANCE_ID).trim();
    return id.isEmpty() ? Optional.empty() : Optional.of(id);
  }

  public Duration sessionTimeout() {
    return values.get(SESSION_TIMEOUT_MS);
  }

  public Duration heartbeatInterval() {
    return values.get(HEARTBEAT_INTERVAL_MS);
  }

  public Duration ownerWait() {
    return values.get(OWNER_WAIT_MS);
  }

  public Duration forwardTimeout() {
    return values.get(FORWARD_TIMEOUT_MS);
  }

  public Duration forwardConnectTimeout() {
    return values.get(FORWARD_CONNECT_TIMEOUT_MS);
  }

  public int forwardMaxHops() {
    return values.get(FORWARD_MAX_HOPS);
  }

  public int forwardPoolSize() {
    return values.get(FORWARD_POOL_SIZE);
  }

  public Duration handoverDrain() {
    return values.get(HANDOVER_DRAIN_MS);
  }

  public Duration batchHoldLease() {
    return values.get(BATCH_HOLD_LEASE_MS);
  }

  public boolean abandonHoldsOnClose() {
    return values.get(TEST_ABANDON_HOLDS_ON_CLOSE);
  }

  private static void checkUrl(String name, String url) {
    URI uri;
    try {
      uri = new URI(url);
    } catch (URISyntaxException e) {
      throw new ConfigException(name, url, "not a URL: " + e.getMessage());
    }
    String scheme = uri.getScheme() == null ? "" : uri.getScheme().toLowerCase(Locale.ROOT);
    if (!scheme.equals("http") && !scheme.equals("https")) {
      throw new ConfigException(name, url, "not an http:// or https:// URL");
    }
    if (uri.getHost() == null) {
      throw new ConfigException(name, url, "names no host");
    }
    String path = uri.getRawPath();
    if (path != null && !path.isEmpty() && !path.equals("/") || uri.getRawQuery() != null) {
      throw new ConfigException(name, url, "must not have a path or query: requests keep their own path");
    }
  }
}
