package dev.lancecommit.rules.group;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.conflict.CommittedTransaction;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import dev.lancecommit.rules.conflict.ConflictResolver;
import dev.lancecommit.rules.conflict.RebaseInputs;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

/** The member list a group commit records, and the conflict rules reading it. */
class GroupMembersTest {
  private static final String A = "11111111-1111-4111-8111-111111111111";
  private static final String B = "22222222-2222-4222-8222-222222222222";
  private static final String C = "33333333-3333-4333-8333-333333333333";

  private static Transaction append(String uuid, long readVersion) {
    return Transaction.newBuilder().setUuid(uuid).setReadVersion(readVersion)
        .setAppend(Transaction.Append.getDefaultInstance()).build();
  }

  private static Transaction group(String... members) {
    return append(UUID.randomUUID().toString(), 4).toBuilder()
        .putTransactionProperties(GroupMembers.PROPERTY, GroupMembers.encode(List.of(members))).build();
  }

  @Test
  void membersAreReadBackInOrderAndOnlyWholeUuidsMatch() {
    Transaction group = group(A, B);
    assertThat(GroupMembers.of(group)).containsExactly(A, B);
    assertThat(GroupMembers.size(group)).isEqualTo(2);
    assertThat(GroupMembers.includes(group, A)).isTrue();
    assertThat(GroupMembers.includes(group, B)).isTrue();
    assertThat(GroupMembers.includes(group, C)).isFalse();
    assertThat(GroupMembers.includes(group, A.substring(0, 20))).as("a prefix of a member").isFalse();
    assertThat(GroupMembers.includes(group, B.substring(5))).as("a suffix of a member").isFalse();
    assertThat(GroupMembers.includes(group, "")).isFalse();
    assertThat(GroupMembers.madeBy(group, group.getUuid())).as("the group's own uuid").isTrue();

    Transaction single = append(A, 3);
    assertThat(GroupMembers.of(single)).isEmpty();
    assertThat(GroupMembers.size(single)).isEqualTo(1);
    assertThat(GroupMembers.madeBy(single, A)).isTrue();
    assertThat(GroupMembers.madeBy(single, B)).isFalse();
  }

  @Test
  void aWriterCannotSendTheReservedProperty() {
    assertThatThrownBy(() -> GroupMembers.requireAbsent(group(A)))
        .isInstanceOf(InvalidTransactionException.class)
        .hasMessageContaining(GroupMembers.PROPERTY);
    GroupMembers.requireAbsent(append(A, 1));
    assertThatThrownBy(() -> GroupMembers.encode(List.of("a,b"))).isInstanceOf(IllegalArgumentException.class);
  }

  @Test
  void aMemberResubmittedAfterItsGroupLandedIsAlreadyCommittedAtTheSharedVersion() {
    Transaction group = group(A, B, C);
    List<CommittedTransaction> since = List.of(
        new CommittedTransaction(4, append(UUID.randomUUID().toString(), 3)),
        new CommittedTransaction(5, group));

    var outcome = ConflictResolver.checkAll(append(B, 2), since, RebaseInputs.defaults());
    assertThat(outcome.kind()).isEqualTo(Kind.ALREADY_COMMITTED);
    assertThat(outcome.theirVersion()).isEqualTo(5);
    assertThat(outcome.reason()).contains("group commit " + group.getUuid());

    var check = ConflictResolver.check(append(C, 4), group, 5, RebaseInputs.noRebase());
    assertThat(check.kind()).as("decided before no-rebase").isEqualTo(Kind.ALREADY_COMMITTED);
  }

  @Test
  void aMemberUuidReusedForAnotherOperationIsIncompatible() {
    Transaction delete = Transaction.newBuilder().setUuid(A).setReadVersion(2)
        .setDelete(Transaction.Delete.getDefaultInstance()).build();
    var outcome = ConflictResolver.checkAll(delete, List.of(new CommittedTransaction(5, group(A, B))),
        RebaseInputs.defaults());
    assertThat(outcome.kind()).isEqualTo(Kind.INCOMPATIBLE);
    assertThat(outcome.rule()).isEqualTo("uuid-reuse");
  }

  @Test
  void aTransactionNotInTheGroupIsCheckedByTheMatrix() {
    var outcome = ConflictResolver.checkAll(append(C, 2), List.of(new CommittedTransaction(5, group(A, B))),
        RebaseInputs.defaults());
    assertThat(outcome.kind()).isEqualTo(Kind.COMPATIBLE);
  }
}
