package dev.lancecommit.testing.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.apache.kafka.clients.consumer.ConsumerConfig;
import org.apache.kafka.clients.consumer.ConsumerRecord;
import org.apache.kafka.clients.consumer.KafkaConsumer;
import org.apache.kafka.clients.producer.KafkaProducer;
import org.apache.kafka.clients.producer.ProducerConfig;
import org.apache.kafka.clients.producer.ProducerRecord;
import org.apache.kafka.common.serialization.StringDeserializer;
import org.apache.kafka.common.serialization.StringSerializer;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.RegisterExtension;
import org.testcontainers.DockerClientFactory;

/** The fixture takes Testcontainers exactly when Docker answers, and serves, stops and resumes one broker. */
class KafkaBrokerFixtureTest {
  @RegisterExtension static final KafkaBrokerFixture KAFKA = new KafkaBrokerFixture();

  @Test
  void takesTestcontainersOnlyWhereADockerEngineAnswers() {
    boolean docker = DockerClientFactory.instance().isDockerAvailable();
    assertThat(KAFKA.kind()).isEqualTo(docker ? KafkaBrokerFixture.Kind.TESTCONTAINERS
        : KafkaBrokerFixture.Kind.EMBEDDED);
  }

  @Test
  void recordsSurviveAnOutageAtTheSameAddress() throws Exception {
    String bootstrap = KAFKA.bootstrapServers();
    try (Admin admin = admin(bootstrap)) {
      admin.createTopics(List.of(new NewTopic("fixture", 1, (short) 1))).all().get(60, TimeUnit.SECONDS);
    }
    try (KafkaProducer<String, String> producer = new KafkaProducer<>(Map.of(
        ProducerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap), new StringSerializer(), new StringSerializer())) {
      producer.send(new ProducerRecord<>("fixture", "k", "before the outage")).get(30, TimeUnit.SECONDS);
    }

    KAFKA.stop();
    try (Admin admin = admin(bootstrap)) {
      assertThatThrownBy(() -> admin.listTopics().names().get(10, TimeUnit.SECONDS)).isNotNull();
    }
    KAFKA.start();

    assertThat(KAFKA.bootstrapServers()).isEqualTo(bootstrap);
    try (KafkaConsumer<String, String> consumer = new KafkaConsumer<>(Map.of(
        ConsumerConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap, ConsumerConfig.GROUP_ID_CONFIG, "fixture-test",
        ConsumerConfig.AUTO_OFFSET_RESET_CONFIG, "earliest"), new StringDeserializer(), new StringDeserializer())) {
      consumer.subscribe(List.of("fixture"));
      long deadline = System.nanoTime() + Duration.ofSeconds(60).toNanos();
      String value = null;
      while (value == null && System.nanoTime() < deadline) {
        for (ConsumerRecord<String, String> record : consumer.poll(Duration.ofMillis(500))) {
          value = record.value();
        }
      }
      assertThat(value).isEqualTo("before the outage");
    }
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000));
  }
}
