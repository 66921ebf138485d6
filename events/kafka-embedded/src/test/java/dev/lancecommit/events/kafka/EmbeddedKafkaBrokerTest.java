package dev.lancecommit.events.kafka;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.apache.kafka.clients.admin.Admin;
import org.apache.kafka.clients.admin.AdminClientConfig;
import org.apache.kafka.clients.admin.NewTopic;
import org.junit.jupiter.api.Test;

/** The broker serves, keeps its address and topics across stop/start, and removes its temporary data dir on close. */
class EmbeddedKafkaBrokerTest {

  @Test
  void servesKeepsTopicsAcrossARestartAndDeletesItsTemporaryDataDir() throws Exception {
    EmbeddedKafkaBroker broker = EmbeddedKafkaBroker.startTemporary();
    Path dataDir = broker.dataDir();
    try {
      String bootstrap = broker.bootstrapServers();
      try (Admin admin = admin(bootstrap)) {
        admin.createTopics(List.of(new NewTopic("kept", 1, (short) 1))).all().get(30, TimeUnit.SECONDS);
      }
      broker.stop();
      assertThat(broker.isRunning()).isFalse();
      try (Admin admin = admin(bootstrap)) {
        assertThatThrownBy(() -> admin.listTopics().names().get(10, TimeUnit.SECONDS))
            .isInstanceOfAny(ExecutionException.class, java.util.concurrent.TimeoutException.class);
      }
      broker.start();
      assertThat(broker.bootstrapServers()).isEqualTo(bootstrap);
      try (Admin admin = admin(bootstrap)) {
        Set<String> names = admin.listTopics().names().get(30, TimeUnit.SECONDS);
        assertThat(names).contains("kept");
      }
    } finally {
      broker.close();
    }
    assertThat(broker.isRunning()).isFalse();
    assertThat(Files.exists(dataDir)).as("temporary data dir deleted").isFalse();
  }

  private static Admin admin(String bootstrap) {
    return Admin.create(Map.of(AdminClientConfig.BOOTSTRAP_SERVERS_CONFIG, bootstrap,
        AdminClientConfig.DEFAULT_API_TIMEOUT_MS_CONFIG, 5000, AdminClientConfig.REQUEST_TIMEOUT_MS_CONFIG, 2000));
  }
}
