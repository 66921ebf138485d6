package dev.lancecommit.coordinator.cluster;

import static org.assertj.core.api.Assertions.assertThat;
import static org.awaitility.Awaitility.await;

import dev.lancecommit.coordinator.CoordinatorConfig;
import dev.lancecommit.events.KafkaTopics;
import dev.lancecommit.testing.kafka.KafkaBrokerFixture;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.Set;
import java.util.TreeSet;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * Ownership through Kafka's consumer-group protocol, against a real broker: members split the events topic's
 * partitions, agree on who owns what (URLs included), hand partitions over when one leaves and take only what must
 * move when one joins, and the partition of a table is the one its events go to.
 */
class ClusterMembershipTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();
  private static final int PARTITIONS = 6;

  private final List<ClusterMembership> started = new ArrayList<>();
  private final String topic = "cluster-" + UUID.randomUUID();
  private final String group = "group-" + UUID.randomUUID();

  /** What a member's handover was told, in order. */
  static final class RecordingHandover implements ClusterMembership.Handover {
    final List<Set<Integer>> released = new CopyOnWriteArrayList<>();
    final List<Set<Integer>> gained = new CopyOnWriteArrayList<>();
    final List<Set<Integer>> lost = new CopyOnWriteArrayList<>();

    @Override
    public void release(Set<Integer> partitions, int partitionCount) {
      released.add(partitions);
    }

    @Override
    public void lost(Set<Integer> partitions, int partitionCount) {
      lost.add(partitions);
    }

    @Override
    public void gained(Set<Integer> partitions, int partitionCount) {
      gained.add(partitions);
    }

    void clear() {
      released.clear();
      gained.clear();
      lost.clear();
    }

    Set<Integer> everReleased() {
      Set<Integer> all = new TreeSet<>();
      released.forEach(all::addAll);
      return all;
    }
  }

  @AfterEach
  void leave() {
    started.forEach(ClusterMembership::close);
  }

  private ClusterMembership join(String url, RecordingHandover handover) {
    ClusterConfig config = CoordinatorConfig.builder()
        .set("cluster.enabled", "true")
        .set("cluster.advertised-url", url)
        .set("cluster.secret", "0123456789abcdef")
        .set("cluster.group", group)
        .build().clusterConfig();
    ClusterMembership member = new ClusterMembership(config, KAFKA.bootstrapServers(), topic);
    started.add(member);
    member.start(handover);
    return member;
  }

  private void createTopic() {
    KafkaTopics.ensureTopic(KAFKA.bootstrapServers(), topic, PARTITIONS, (short) 1, Map.of(), Duration.ofSeconds(30));
  }

  /** Waits until the members serve every partition once between them and hold the same map naming them. */
  private static void awaitSettled(List<ClusterMembership> members) {
    await().atMost(Duration.ofSeconds(60)).pollInterval(Duration.ofMillis(100)).untilAsserted(() -> {
      Set<Integer> all = new HashSet<>();
      int total = 0;
      for (ClusterMembership member : members) {
        total += member.serving().size();
        all.addAll(member.serving());
        assertThat(member.generation()).isEqualTo(members.get(0).generation());
        for (int p : member.serving()) {
          for (ClusterMembership other : members) {
            assertThat(other.status().get("owners")).asInstanceOf(
                org.assertj.core.api.InstanceOfAssertFactories.MAP).containsEntry(Integer.toString(p), member.self());
          }
        }
      }
      assertThat(all).hasSize(PARTITIONS);
      assertThat(total).isEqualTo(PARTITIONS);
    });
  }

  @Test
  void membersSplitThePartitionsAndRouteByTheMap() {
    createTopic();
    List<ClusterMembership> members = List.of(join("http://m1:1", new RecordingHandover()),
        join("http://m2:2", new RecordingHandover()), join("http://m3:3", new RecordingHandover()));
    awaitSettled(members);
    for (ClusterMembership member : members) {
      assertThat(member.serving()).hasSize(2); // cooperative-sticky balances
      assertThat(member.partitionCount()).isEqualTo(PARTITIONS);
    }
    ClusterMembership m1 = members.get(0);
    for (int i = 0; i < 200; i++) {
      String key = "sales$t" + i;
      int partition = TablePartitioner.partition(key, PARTITIONS);
      Route route = m1.route(key);
      assertThat(route.partition()).isEqualTo(partition);
      if (m1.serving().contains(partition)) {
        assertThat(route).isEqualTo(new Route.Local(partition));
        assertThat(m1.serves(key)).isTrue();
        assertThat(m1.publishes(key)).isTrue();
      } else {
        ClusterMembership owner = members.stream().filter(m -> m.serving().contains(partition)).findFirst()
            .orElseThrow();
        assertThat(route).isEqualTo(new Route.Remote(partition, owner.self(), m1.generation()));
        assertThat(m1.serves(key)).isFalse();
        assertThat(m1.publishes(key)).isFalse();
      }
    }
  }

  @Test
  void aLeavingMemberHandsOverAndOnlyWhatMustMoveMoves() {
    createTopic();
    RecordingHandover h1 = new RecordingHandover();
    RecordingHandover h2 = new RecordingHandover();
    RecordingHandover h3 = new RecordingHandover();
    ClusterMembership m1 = join("http://m1:1", h1);
    ClusterMembership m2 = join("http://m2:2", h2);
    ClusterMembership m3 = join("http://m3:3", h3);
    awaitSettled(List.of(m1, m2, m3));
    Set<Integer> kept1 = Set.copyOf(m1.serving());
    Set<Integer> kept2 = Set.copyOf(m2.serving());
    Set<Integer> leaving = Set.copyOf(m3.serving());
    // what the members were told while they joined one after the other does not count
    List.of(h1, h2, h3).forEach(RecordingHandover::clear);

    m3.close(); // leaves the group: hands its partitions over at once, not after the session timeout
    assertThat(h3.everReleased()).isEqualTo(leaving);
    awaitSettled(List.of(m1, m2));
    assertThat(m1.serving()).containsAll(kept1);
    assertThat(m2.serving()).containsAll(kept2);
    assertThat(h1.released).isEmpty(); // nothing was taken from the members that stayed
    assertThat(h2.released).isEmpty();
    Set<Integer> gained = new TreeSet<>();
    h1.gained.forEach(gained::addAll);
    h2.gained.forEach(gained::addAll);
    assertThat(gained).containsAll(leaving);

    List.of(h1, h2).forEach(RecordingHandover::clear);
    Map<Integer, String> before = new HashMap<>();
    m1.serving().forEach(p -> before.put(p, m1.self()));
    m2.serving().forEach(p -> before.put(p, m2.self()));
    RecordingHandover h4 = new RecordingHandover();
    ClusterMembership m4 = join("http://m4:4", h4);
    awaitSettled(List.of(m1, m2, m4));
    // a newcomer gets its share from the others; every partition that moved moved to it
    assertThat(m4.serving()).hasSize(2);
    for (int p = 0; p < PARTITIONS; p++) {
      if (!m4.serving().contains(p)) {
        assertThat(m1.serving().contains(p) ? m1.self() : m2.self()).isEqualTo(before.get(p));
      }
    }
    Set<Integer> releasedToNewcomer = new TreeSet<>(h1.everReleased());
    releasedToNewcomer.addAll(h2.everReleased());
    assertThat(releasedToNewcomer).isEqualTo(m4.serving());
    assertThat(h1.lost).isEmpty();
    assertThat(h2.lost).isEmpty();
    assertThat(h4.everReleased()).isEmpty();
  }

  @Test
  void aTablesPartitionIsTheOneItsEventsGoTo() throws Exception {
    createTopic();
    Properties props = new Properties();
    props.put(ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, KAFKA.bootstrapServers());
    props.put(ProducerConfig.KEY_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    props.put(ProducerConfig.VALUE_SERIALIZER_CLASS_CONFIG, StringSerializer.class.getName());
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(props)) {
      for (int i = 0; i < 50; i++) {
        String key = "ns" + (i % 3) + "$table_" + i;
        int partition = producer.send(new ProducerRecord<>(topic, key, "{}")).get().partition();
        assertThat(TablePartitioner.partition(key, PARTITIONS)).as(key).isEqualTo(partition);
      }
    }
  }

  /**
   * A pause long enough to be suspect but shorter than the session timeout (a long GC): the member stops serving, the
   * rejoin it forces confirms the membership (the group coordinator answers a follower whose subscription did not
   * change without a new generation), and it serves its partitions again without any of them moving. Leader and
   * follower alike.
   */
  @Test
  void aShortPauseIsConfirmedByTheRejoinAndNothingMoves() {
    createTopic();
    RecordingHandover handoverA = new RecordingHandover();
    RecordingHandover handoverB = new RecordingHandover();
    ClusterMembership a = join("http://a.example:1", handoverA);
    ClusterMembership b = join("http://b.example:2", handoverB);
    awaitSettled(List.of(a, b));
    for (ClusterMembership member : List.of(a, b)) {
      Set<Integer> served = member.serving();
      assertThat(served).isNotEmpty();
      handoverA.clear();
      handoverB.clear();
      member.suspectPause();
      assertThat(member.serving()).isEmpty();
      assertThat(member.isMember()).isFalse();
      await().atMost(Duration.ofSeconds(30)).pollInterval(Duration.ofMillis(100))
          .untilAsserted(() -> assertThat(member.serving()).isEqualTo(served));
      assertThat(member.isMember()).isTrue();
      assertThat(handoverA.lost).isEmpty();
      assertThat(handoverB.lost).isEmpty();
      assertThat(handoverA.everReleased()).doesNotContainAnyElementsOf(served);
      assertThat(handoverB.everReleased()).doesNotContainAnyElementsOf(served);
    }
  }

  @Test
  void ownsNothingBeforeJoiningAndSaysWhy() {
    ClusterMembership member = join("http://m1:1", new RecordingHandover()); // the topic does not exist yet
    Route route = member.route("a$b");
    assertThat(route).isInstanceOf(Route.Unowned.class);
    assertThat(((Route.Unowned) route).reason()).contains("has not received the cluster's ownership map");
    assertThat(member.serves("a$b")).isFalse();
    createTopic();
    awaitSettled(List.of(member));
    assertThat(member.serves("a$b")).isTrue();
  }
}
