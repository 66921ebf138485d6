package dev.lancecommit.coordinator.cluster;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import org.apache.kafka.clients.consumer.ConsumerGroupMetadata;
import org.apache.kafka.clients.consumer.ConsumerPartitionAssignor;
import org.apache.kafka.clients.consumer.CooperativeStickyAssignor;
import org.apache.kafka.common.Cluster;
import org.apache.kafka.common.Configurable;
import org.apache.kafka.common.TopicPartition;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Kafka's cooperative-sticky assignor, plus each member's advertised URL: a member's subscription carries its URL,
 * and the leader hands every member, with its own partitions, the whole map of partition to owner URL
 * ({@link OwnershipMap}). The partitions themselves are exactly what {@link CooperativeStickyAssignor} decides: a
 * rebalance moves only the partitions it must, and a partition moving between two live members is first revoked
 * (no owner for one round) and assigned in the next.
 *
 * <p>Kafka instantiates assignors by class name; the member's {@link Listener} arrives through the consumer's
 * configuration under {@link #LISTENER_CONFIG} (a reference, never serialized).
 */
public final class UrlAdvertisingAssignor implements ConsumerPartitionAssignor, Configurable {
  private static final Logger LOG = LoggerFactory.getLogger(UrlAdvertisingAssignor.class);
  /** Consumer configuration entry holding this member's {@link Listener}. */
  public static final String LISTENER_CONFIG = "lance.commit.cluster.listener";
  static final String NAME = "lance-commit-cooperative-sticky";
  /** Marks the userData this assignor writes ("LCC1"), so foreign or corrupt data is recognised. */
  private static final int MAGIC = 0x4C434331;

  /** The member this assignor works for. */
  public interface Listener {
    /** The URL advertised in this member's subscription. */
    String advertisedUrl();

    /** The map received with this member's assignment, on the consumer's thread, before its partitions change. */
    void onOwnershipMap(OwnershipMap map);
  }

  private final CooperativeStickyAssignor delegate = new CooperativeStickyAssignor();
  private Listener listener;

  @Override
  public void configure(Map<String, ?> configs) {
    Object value = configs.get(LISTENER_CONFIG);
    if (!(value instanceof Listener given)) {
      throw new IllegalArgumentException(LISTENER_CONFIG + " must hold the member's listener, got " + value);
    }
    this.listener = given;
  }

  @Override
  public String name() {
    return NAME;
  }

  @Override
  public List<RebalanceProtocol> supportedProtocols() {
    return List.of(RebalanceProtocol.COOPERATIVE);
  }

  @Override
  public short version() {
    return delegate.version();
  }

  @Override
  public ByteBuffer subscriptionUserData(Set<String> topics) {
    byte[] url = listener.advertisedUrl().getBytes(StandardCharsets.UTF_8);
    return wrap(url, delegate.subscriptionUserData(topics));
  }

  @Override
  public GroupAssignment assign(Cluster metadata, GroupSubscription group) {
    Map<String, Subscription> inner = new HashMap<>();
    Map<String, String> urls = new HashMap<>();
    Set<String> topics = new TreeSet<>();
    group.groupSubscription().forEach((member, subscription) -> {
      Wrapped data = unwrap(subscription.userData());
      if (data.first() != null) {
        urls.put(member, new String(data.first(), StandardCharsets.UTF_8));
      } else {
        LOG.warn("Member {} advertises no URL; requests for its partitions wait until it is replaced", member);
      }
      Subscription unwrapped = new Subscription(subscription.topics(), data.second(),
          subscription.ownedPartitions(), subscription.generationId().orElse(-1), subscription.rackId());
      unwrapped.setGroupInstanceId(subscription.groupInstanceId());
      inner.put(member, unwrapped);
      topics.addAll(subscription.topics());
    });
    GroupAssignment assigned = delegate.assign(metadata, new GroupSubscription(inner));
    if (topics.size() != 1) {
      throw new IllegalStateException("cluster members subscribe to exactly one topic, got " + topics);
    }
    String topic = topics.iterator().next();
    Integer partitions = metadata.partitionCountForTopic(topic);
    String[] owners = new String[partitions == null ? 0 : partitions];
    assigned.groupAssignment().forEach((member, assignment) -> {
      for (TopicPartition tp : assignment.partitions()) {
        if (tp.topic().equals(topic) && tp.partition() < owners.length) {
          owners[tp.partition()] = urls.get(member);
        }
      }
    });
    byte[] map = bytes(new OwnershipMap(0, Arrays.asList(owners)).encode());
    Map<String, Assignment> out = new HashMap<>();
    assigned.groupAssignment().forEach((member, assignment) ->
        out.put(member, new Assignment(assignment.partitions(), wrap(map, assignment.userData()))));
    return new GroupAssignment(out);
  }

  @Override
  public void onAssignment(Assignment assignment, ConsumerGroupMetadata metadata) {
    Wrapped data = unwrap(assignment.userData());
    delegate.onAssignment(new Assignment(assignment.partitions(), data.second()), metadata);
    OwnershipMap map;
    if (data.first() == null) {
      LOG.warn("Assignment of generation {} carries no ownership map; only this member's partitions are known",
          metadata.generationId());
      map = OwnershipMap.EMPTY;
    } else {
      try {
        map = OwnershipMap.decode(ByteBuffer.wrap(data.first()));
      } catch (IllegalArgumentException e) {
        LOG.warn("Ownership map of generation {} cannot be read: {}", metadata.generationId(), e.getMessage());
        map = OwnershipMap.EMPTY;
      }
    }
    listener.onOwnershipMap(map.inGeneration(metadata.generationId()));
  }

  /** Two byte strings in one buffer: {@code magic, len(first), first, len(second) or -1, second}. */
  static ByteBuffer wrap(byte[] first, ByteBuffer second) {
    byte[] rest = second == null ? null : bytes(second);
    ByteBuffer out = ByteBuffer.allocate(4 + 4 + first.length + 4 + (rest == null ? 0 : rest.length));
    out.putInt(MAGIC).putInt(first.length).put(first);
    if (rest == null) {
      out.putInt(-1);
    } else {
      out.putInt(rest.length).put(rest);
    }
    return out.flip();
  }

  /** The two parts; {@code first} null when the buffer is not ours (then {@code second} is all of it). */
  static Wrapped unwrap(ByteBuffer data) {
    if (data == null) {
      return new Wrapped(null, null);
    }
    ByteBuffer in = data.duplicate();
    try {
      if (in.remaining() < 12 || in.getInt() != MAGIC) {
        return new Wrapped(null, data.duplicate());
      }
      int firstLength = in.getInt();
      byte[] first = new byte[firstLength];
      in.get(first);
      int secondLength = in.getInt();
      if (secondLength < 0) {
        return new Wrapped(first, null);
      }
      byte[] second = new byte[secondLength];
      in.get(second);
      return new Wrapped(first, ByteBuffer.wrap(second));
    } catch (RuntimeException e) {
      return new Wrapped(null, data.duplicate());
    }
  }

  private static byte[] bytes(ByteBuffer buffer) {
    ByteBuffer copy = buffer.duplicate();
    byte[] out = new byte[copy.remaining()];
    copy.get(out);
    return out;
  }

  record Wrapped(byte[] first, ByteBuffer second) {}
}
