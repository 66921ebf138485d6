package dev.lancecommit.events.trigger;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class TransactionsTest {
  private static final DataFragment OLD_1 = DataFragment.newBuilder().setId(1).setPhysicalRows(3).build();
  private static final DataFragment OLD_2 = DataFragment.newBuilder().setId(2).setPhysicalRows(4).build();
  private static final DataFragment NEW = DataFragment.newBuilder().setId(0).setPhysicalRows(7).build();

  @Test
  void aRewriteIsOneGroupOnTheReadVersion() throws Exception {
    Transaction txn = Transactions.rewrite(5, List.of(OLD_1, OLD_2), List.of(NEW));
    Transaction decoded = Transaction.parseFrom(txn.toByteArray());
    assertThat(decoded.getReadVersion()).isEqualTo(5);
    assertThat(UUID.fromString(decoded.getUuid()).version()).isEqualTo(4);
    assertThat(decoded.getOperationCase()).isEqualTo(Transaction.OperationCase.REWRITE);
    assertThat(decoded.getRewrite().getGroupsList()).hasSize(1);
    assertThat(decoded.getRewrite().getGroups(0).getOldFragmentsList()).containsExactly(OLD_1, OLD_2);
    assertThat(decoded.getRewrite().getGroups(0).getNewFragmentsList()).containsExactly(NEW);
    assertThat(decoded.getRewrite().getOldFragmentsList()).isEmpty();
    assertThat(decoded.getTransactionPropertiesMap()).containsEntry(Transactions.MAINTENANCE_PROPERTY, "compaction");
  }

  @Test
  void aRebuildGetsANewReadVersionAndUuid() {
    Transaction txn = Transactions.rewrite(5, List.of(OLD_1), List.of(NEW));
    Transaction rebased = Transactions.rebased(txn, 9);
    assertThat(rebased.getReadVersion()).isEqualTo(9);
    assertThat(rebased.getUuid()).isNotEqualTo(txn.getUuid());
    assertThat(rebased.getRewrite()).isEqualTo(txn.getRewrite());
  }

  @Test
  void aCreateIndexReplacesTheOldSegments() {
    IndexMetadata old = IndexMetadata.newBuilder().setName("id_idx").setDatasetVersion(1).build();
    IndexMetadata rebuilt = IndexMetadata.newBuilder().setName("id_idx").setDatasetVersion(7).build();
    Transaction txn = Transactions.createIndex(7, List.of(rebuilt), List.of(old));
    assertThat(txn.getCreateIndex().getNewIndicesList()).containsExactly(rebuilt);
    assertThat(txn.getCreateIndex().getRemovedIndicesList()).containsExactly(old);
  }

  @Test
  void badInputIsRefused() {
    assertThatThrownBy(() -> Transactions.rewrite(5, List.of(), List.of(NEW)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> Transactions.rewrite(0, List.of(OLD_1), List.of(NEW)))
        .isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TriggerPolicy(1, 10, 4, 0)).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> new TriggerPolicy(5, 10, 4, 0)).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void theDocumentedCommandLineParsesOntoTheKeys() {
    TriggerConsumerMain.Settings settings = TriggerConsumerMain.Settings.parse(new String[] {
        "--bootstrap", "127.0.0.1:9092", "--topic", "lance.commits", "--coordinator", "http://127.0.0.1:9101",
        "--group", "lance-commit-trigger", "--min-fragments", "8", "--max-small-rows", "100000",
        "--detect-only", "--storage-option", "aws_region=eu-west-1", "--set", "consumer.session.timeout.ms=30000"},
        System.out);
    assertThat(settings.consumer().bootstrapServers()).isEqualTo("127.0.0.1:9092");
    assertThat(settings.consumer().groupId()).isEqualTo("lance-commit-trigger");
    assertThat(settings.consumer().consumerProperties()).containsEntry("session.timeout.ms", "30000");
    assertThat(settings.policy()).isEqualTo(TriggerPolicy.defaults());
    assertThat(settings.detectOnly()).isTrue();
    assertThat(settings.maxAttempts()).isEqualTo(5);
    assertThat(settings.storageOptions()).containsEntry("aws_region", "eu-west-1");
    assertThat(settings.checkpoints()).hasToString("trigger.checkpoints.jsonl");
  }

  @Test
  void theCommandRefusesBadFlags() {
    java.io.ByteArrayOutputStream err = new java.io.ByteArrayOutputStream();
    int code = TriggerConsumerMain.run(new String[] {"--bootstrap", "127.0.0.1:9092", "--coordinator", "ftp://x",
        "--min-fragments", "4"}, new java.io.PrintStream(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("coordinator URL must be http(s)");
    err.reset();
    code = TriggerConsumerMain.run(new String[] {"--bootstrap", "127.0.0.1:9092", "--coordinator", "http://x:1",
        "--min-fragmentz", "4"}, new java.io.PrintStream(err));
    assertThat(code).isEqualTo(2);
    assertThat(err.toString()).contains("--min-fragmentz");
  }
}
