package dev.lancecommit.coordinator.cluster;

import java.time.Duration;
import java.util.Collection;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.UnaryOperator;
import org.apache.kafka.clients.consumer.CloseOptions;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRebalanceListener;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.common.KafkaException;
import org.apache.kafka.common.TopicPartition;
import org.apache.kafka.common.errors.WakeupException;
import org.apache.kafka.common.serialization.ByteArrayDeserializer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * This instance's membership in the cluster, through Kafka's consumer-group protocol: a consumer of the events topic
 * in group {@code cluster.group} that never reads a record (its partitions stay paused) and never commits an offset.
 * The group coordinator decides which member owns which partition, detects members that stop heartbeating, and
 * rebalances; {@link UrlAdvertisingAssignor} (cooperative-sticky, so only the partitions that must move do) tells
 * every member who owns what. The owner of a partition commits to its tables and publishes their events.
 *
 * <p>Ownership is a performance matter, never a safety one: every manifest is still written with put-if-absent. What
 * ownership buys is one writer per table (no contention, group commit where the queue is) and one producer per
 * table's events. So an instance that may have lost a partition without knowing yet (paused past its session
 * timeout: {@link PauseDetector}) stops serving until the group confirms its membership again in a rebalance.
 *
 * <p>Threads: one thread runs the consumer (rebalance callbacks included, so {@link Handover#release} may block it
 * within the handover bound; heartbeats go on in Kafka's own heartbeat thread). Everything else reads an immutable
 * {@link State}.
 */
public final class ClusterMembership implements TableOwnership, AutoCloseable, UrlAdvertisingAssignor.Listener {
  private static final Logger LOG = LoggerFactory.getLogger(ClusterMembership.class);
  private static final Duration POLL = Duration.ofMillis(100);
  private static final Duration CLOSE_TIMEOUT = Duration.ofSeconds(30);

  /** What ownership changes do to the rest of the coordinator. */
  public interface Handover {
    /**
     * Partitions are being taken away in a rebalance (or at shutdown): stop committing to their tables, let what is
     * under way finish and publish their events, within the handover bound. Runs on the membership thread; the
     * partitions go to their new owner once it returns.
     */
    void release(Set<Integer> partitions, int partitionCount);

    /** Partitions were lost without a handover (the session expired): drop their state at once, wait for nothing. */
    void lost(Set<Integer> partitions, int partitionCount);

    /** Partitions were gained: catch up on their tables (in the background, never blocking). */
    void gained(Set<Integer> partitions, int partitionCount);

    Handover NONE = new Handover() {
      @Override
      public void release(Set<Integer> partitions, int partitionCount) { }

      @Override
      public void lost(Set<Integer> partitions, int partitionCount) { }

      @Override
      public void gained(Set<Integer> partitions, int partitionCount) { }
    };
  }

  /**
   * One immutable view of the membership.
   *
   * @param map the map of the last rebalance
   * @param owned partitions assigned to this member
   * @param revoking owned partitions being given up (no new commits)
   * @param suspectSince -1, or the generation in which a long pause was noticed (not serving until a later one)
   */
  record State(OwnershipMap map, Set<Integer> owned, Set<Integer> revoking, int suspectSince) {
    State {
      owned = Set.copyOf(owned);
      revoking = Set.copyOf(revoking);
    }

    boolean suspect() {
      return suspectSince >= 0;
    }
  }

  private final ClusterConfig config;
  private final String bootstrap;
  private final String topic;
  private final String self;
  private final PauseDetector pauses;
  private final AtomicReference<State> state =
      new AtomicReference<>(new State(OwnershipMap.EMPTY, Set.of(), Set.of(), -1));
  private final AtomicReference<CompletableFuture<Void>> nextChange = new AtomicReference<>(new CompletableFuture<>());
  private final AtomicBoolean rejoinRequested = new AtomicBoolean();
  /**
   * Set when the membership thread forces the rejoin that a suspect pause asked for: the next assignment comes from
   * that join, which the group coordinator accepted with this member's id, so the membership stands. (A follower
   * whose subscription did not change is answered without a new generation, so the generation alone cannot tell.)
   */
  private final AtomicBoolean rejoinForced = new AtomicBoolean();
  private final AtomicBoolean started = new AtomicBoolean();
  private final Thread thread;
  private volatile Handover handover = Handover.NONE;
  private volatile boolean closed;
  private volatile KafkaConsumer<byte[], byte[]> consumer;

  /**
   * @param bootstrap the Kafka cluster of the events topic
   * @param topic the events topic, whose partitions are owned
   */
  public ClusterMembership(ClusterConfig config, String bootstrap, String topic) {
    this.config = Objects.requireNonNull(config, "config");
    this.bootstrap = Objects.requireNonNull(bootstrap, "bootstrap");
    this.topic = Objects.requireNonNull(topic, "topic");
    this.self = config.advertisedUrl();
    Duration stale = min(Duration.ofSeconds(2), config.sessionTimeout().dividedBy(3));
    this.pauses = new PauseDetector(stale, config.sessionTimeout().dividedBy(2), this::suspectPause);
    this.thread = new Thread(this::run, "lance-commit-cluster-member");
    this.thread.setDaemon(true);
  }

  /** Joins the group (in the background); from now on ownership changes go to {@code handover}. Once only. */
  public void start(Handover handover) {
    if (closed || !started.compareAndSet(false, true)) {
      return; // closed before Kafka answered, or started already
    }
    this.handover = Objects.requireNonNull(handover, "handover");
    pauses.start();
    thread.start();
    LOG.info("Joining cluster group {} on topic {} as {} (session timeout {} ms{})", config.group(), topic, self,
        config.sessionTimeout().toMillis(), config.instanceId().map(id -> ", static member " + id).orElse(""));
  }

  @Override
  public String advertisedUrl() {
    return self;
  }

  @Override
  public String self() {
    return self;
  }

  @Override
  public Route route(String tableKey) {
    State current = state.get();
    int count = current.map().partitions();
    if (count == 0) {
      return new Route.Unowned(-1, closed ? "this instance is shutting down"
          : "this instance has not received the cluster's ownership map yet (joining the group)");
    }
    int partition = TablePartitioner.partition(tableKey, count);
    if (current.owned().contains(partition)) {
      if (current.revoking().contains(partition)) {
        return new Route.Unowned(partition, "partition " + partition + " is being handed over to another instance");
      }
      if (current.suspect() || !pauses.fresh()) {
        return new Route.Unowned(partition, "this instance is confirming its group membership after a pause");
      }
      return new Route.Local(partition);
    }
    Optional<String> owner = current.map().owner(partition);
    if (owner.isPresent() && !owner.get().equals(self)) {
      return new Route.Remote(partition, owner.get(), current.map().generation());
    }
    return new Route.Unowned(partition, owner.isPresent()
        ? "partition " + partition + " is being assigned to this instance"
        : "partition " + partition + " has no owner while the cluster rebalances");
  }

  @Override
  public boolean serves(String tableKey) {
    return route(tableKey) instanceof Route.Local;
  }

  @Override
  public boolean publishes(String tableKey) {
    State current = state.get();
    int count = current.map().partitions();
    return count > 0 && current.owned().contains(TablePartitioner.partition(tableKey, count));
  }

  @Override
  public CompletableFuture<Void> changed() {
    return nextChange.get();
  }

  @Override
  public int generation() {
    return state.get().map().generation();
  }

  /**
   * Whether this instance takes part in the cluster now: it has the ownership map and no unconfirmed pause. Before
   * that it cannot tell where a table's requests go (they wait, bounded, for a map).
   */
  public boolean isMember() {
    State current = state.get();
    return !closed && current.map().partitions() > 0 && !current.suspect();
  }

  /** Partitions of the events topic as of the last map (0 before the first). */
  public int partitionCount() {
    return state.get().map().partitions();
  }

  /** Partitions this instance serves now. */
  public Set<Integer> serving() {
    State current = state.get();
    if (current.suspect() || !pauses.fresh()) {
      return Set.of();
    }
    Set<Integer> out = new TreeSet<>(current.owned());
    out.removeAll(current.revoking());
    return out;
  }

  @Override
  public Map<String, Object> status() {
    State current = state.get();
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("member", self);
    out.put("group", config.group());
    out.put("generation", current.map().generation());
    out.put("partitions", current.map().partitions());
    out.put("serving", List.copyOf(serving()));
    out.put("suspect", current.suspect());
    Map<String, Object> owners = new LinkedHashMap<>();
    for (int p = 0; p < current.map().partitions(); p++) {
      owners.put(Integer.toString(p), current.map().owner(p).orElse(null));
    }
    out.put("owners", owners);
    return out;
  }

  // ---------------------------------------------------------------- the consumer's side

  @Override
  public void onOwnershipMap(OwnershipMap map) {
    boolean confirmed = rejoinForced.getAndSet(false);
    update(s -> new State(map, s.owned(), s.revoking(),
        s.suspect() && (confirmed || map.generation() > s.suspectSince()) ? -1 : s.suspectSince()));
    LOG.info("Cluster generation {}: partition owners {}", map.generation(), map.owners());
  }

  /** The process stood still long enough to have lost its partitions: serve nothing until a rejoin confirms them. */
  void suspectPause() {
    rejoinForced.set(false); // a join under way since before this pause confirms nothing
    update(s -> s.suspect() ? s : new State(s.map(), s.owned(), s.revoking(), s.map().generation()));
    rejoinRequested.set(true); // a rejoin confirms the membership, or tells us it is lost
  }

  private void run() {
    try (KafkaConsumer<byte[], byte[]> created = new KafkaConsumer<>(consumerProperties())) {
      consumer = created;
      created.subscribe(List.of(topic), new Listener(created));
      while (!closed) {
        try {
          if (rejoinRequested.getAndSet(false)) {
            rejoinForced.set(true);
            created.enforceRebalance("this instance stood still long enough to have lost its partitions");
          }
          created.poll(POLL); // partitions stay paused: this only takes part in the group
        } catch (WakeupException e) {
          // close() or a pause: look at the flags again
        } catch (KafkaException e) {
          LOG.warn("Cluster membership: {}", e.toString());
          sleepQuietly(500);
        }
      }
      try {
        // Leaving (also as a static member) hands the partitions over at once instead of after the session timeout.
        created.close(CloseOptions.groupMembershipOperation(CloseOptions.GroupMembershipOperation.LEAVE_GROUP)
            .withTimeout(CLOSE_TIMEOUT));
      } catch (KafkaException e) {
        LOG.warn("Leaving the cluster group: {}", e.toString());
      }
    } catch (RuntimeException e) {
      LOG.error("Cluster membership stopped", e);
    } finally {
      update(s -> new State(s.map(), Set.of(), Set.of(), s.suspectSince()));
    }
  }

  private final class Listener implements ConsumerRebalanceListener {
    private final KafkaConsumer<byte[], byte[]> consumer;

    Listener(KafkaConsumer<byte[], byte[]> consumer) {
      this.consumer = consumer;
    }

    @Override
    public void onPartitionsRevoked(Collection<TopicPartition> partitions) {
      Set<Integer> numbers = numbers(partitions);
      if (numbers.isEmpty()) {
        return;
      }
      LOG.info("Handing over partitions {}", numbers);
      update(s -> new State(s.map(), s.owned(), union(s.revoking(), numbers), s.suspectSince()));
      try {
        handover.release(numbers, state.get().map().partitions());
      } catch (RuntimeException e) {
        LOG.warn("Handing over partitions {}: {}", numbers, e.toString());
      } finally {
        update(s -> new State(s.map(), minus(s.owned(), numbers), minus(s.revoking(), numbers), s.suspectSince()));
      }
    }

    @Override
    public void onPartitionsAssigned(Collection<TopicPartition> partitions) {
      consumer.pause(partitions); // never fetch: the group is only used for ownership
      Set<Integer> numbers = numbers(partitions);
      if (numbers.isEmpty()) {
        signal();
        return;
      }
      LOG.info("Taking over partitions {}", numbers);
      update(s -> new State(s.map(), union(s.owned(), numbers), minus(s.revoking(), numbers), s.suspectSince()));
      try {
        handover.gained(numbers, state.get().map().partitions());
      } catch (RuntimeException e) {
        LOG.warn("Taking over partitions {}: {}", numbers, e.toString());
      }
    }

    @Override
    public void onPartitionsLost(Collection<TopicPartition> partitions) {
      Set<Integer> numbers = numbers(partitions);
      if (numbers.isEmpty()) {
        return;
      }
      LOG.warn("Lost partitions {} (this instance's group session expired); another instance serves them", numbers);
      update(s -> new State(s.map(), minus(s.owned(), numbers), minus(s.revoking(), numbers), s.suspectSince()));
      try {
        handover.lost(numbers, state.get().map().partitions());
      } catch (RuntimeException e) {
        LOG.warn("Dropping lost partitions {}: {}", numbers, e.toString());
      }
    }
  }

  private Properties consumerProperties() {
    Properties props = new Properties();
    props.put(ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap);
    props.put(ConsumerConfig.GROUP_ID_CONFIG, config.group());
    props.put(ConsumerConfig.CLIENT_ID_CONFIG, "lance-commit-cluster");
    props.put(ConsumerConfig.GROUP_PROTOCOL_CONFIG, "classic"); // client-side assignors need the classic protocol
    props.put(ConsumerConfig.PARTITION_ASSIGNMENT_STRATEGY_CONFIG, UrlAdvertisingAssignor.class.getName());
    props.put(UrlAdvertisingAssignor.LISTENER_CONFIG, this);
    props.put(ConsumerConfig.SESSION_TIMEOUT_MS_CONFIG, (int) config.sessionTimeout().toMillis());
    props.put(ConsumerConfig.HEARTBEAT_INTERVAL_MS_CONFIG, (int) config.heartbeatInterval().toMillis());
    // the rebalance timeout: a member giving partitions up may take the handover bound to let go
    props.put(ConsumerConfig.MAX_POLL_INTERVAL_MS_CONFIG,
        (int) Math.max(30_000, config.handoverDrain().toMillis() * 2 + 10_000));
    config.instanceId().ifPresent(id -> props.put(ConsumerConfig.GROUP_INSTANCE_ID_CONFIG, id));
    props.put(ConsumerConfig.ENABLE_AUTO_COMMIT_CONFIG, false);
    props.put(ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "latest");
    props.put(ConsumerConfig.ALLOW_AUTO_CREATE_TOPICS_CONFIG, false);
    props.put(ConsumerConfig.RECONNECT_BACKOFF_MAX_MS_CONFIG, 1000);
    props.put(ConsumerConfig.KEY_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    props.put(ConsumerConfig.VALUE_DESERIALIZER_CLASS_CONFIG, ByteArrayDeserializer.class.getName());
    return props;
  }

  private void update(UnaryOperator<State> change) {
    state.updateAndGet(change);
    signal();
  }

  private void signal() {
    nextChange.getAndSet(new CompletableFuture<>()).complete(null);
  }

  /**
   * Leaves the group: the partitions are handed over ({@link Handover#release}, within its bound) and the others
   * take them at once.
   */
  @Override
  public void close() {
    if (closed) {
      return;
    }
    closed = true;
    KafkaConsumer<byte[], byte[]> current = consumer;
    if (current != null) {
      current.wakeup();
    }
    if (started.get()) {
      try {
        thread.join(CLOSE_TIMEOUT.plus(config.handoverDrain()).toMillis());
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
      }
    }
    pauses.close();
    signal();
  }

  private Set<Integer> numbers(Collection<TopicPartition> partitions) {
    Set<Integer> out = new TreeSet<>();
    for (TopicPartition tp : partitions) {
      if (tp.topic().equals(topic)) {
        out.add(tp.partition());
      }
    }
    return out;
  }

  private static Set<Integer> union(Set<Integer> a, Set<Integer> b) {
    Set<Integer> out = new HashSet<>(a);
    out.addAll(b);
    return out;
  }

  private static Set<Integer> minus(Set<Integer> a, Set<Integer> b) {
    Set<Integer> out = new HashSet<>(a);
    out.removeAll(b);
    return out;
  }

  private static Duration min(Duration a, Duration b) {
    return a.compareTo(b) <= 0 ? a : b;
  }

  private static void sleepQuietly(long millis) {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
