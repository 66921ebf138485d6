package dev.lancecommit.chaos.harness;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.table.NextVersion;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableSnapshot;
import dev.lancecommit.format.TableState;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.WriterVersions;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.CommitContext;
import dev.lancecommit.rules.ManifestBuilder;
import dev.lancecommit.rules.group.GroupCommit;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import java.time.Instant;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.function.Consumer;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.Dataset;
import org.lance.index.IndexParams;
import org.lance.index.IndexType;
import org.lance.index.scalar.ScalarIndexParams;

/**
 * The after-run table checks on a real Lance table (three versions written by stock Lance: create, append, delete)
 * against a ledger that tells the truth, and against ledgers that each tell one lie the checks exist to catch.
 */
class HistoryVerifierTest {
  @TempDir
  Path dir;

  private ObjectStores stores;
  private ChaosTable table;
  private TableHistory history;

  @BeforeAll
  static void quiet() {
    ChaosHarness.quietLogging();
  }

  @BeforeEach
  void writeTable() {
    stores = ObjectStores.localOnly();
    table = new ChaosTable(List.of("ns", "t"), dir.resolve("t.lance").toString(), Map.of(), stores, 10);
    table.lance().createWithLance(0, 5);
    table.lance().appendWithLance(5, 5);
    try (Dataset ds = table.lance().open()) {
      ds.delete("id = 3");
    }
    try (Dataset ds = table.lance().open()) {
      ds.createIndex(List.of("id"), IndexType.BTREE, Optional.of(TransactionPlanner.INDEX_NAME),
          IndexParams.builder().setScalarIndexParams(ScalarIndexParams.create("btree", "{}")).build(), true);
    }
    history = TableHistory.read(table);
  }

  @AfterEach
  void close() {
    table.close();
    stores.close();
  }

  @Test
  void truthfulLedgerPassesEveryCheck() {
    List<CheckResult> results = verify(ledger -> { });
    CheckResult lookups = results.get(results.size() - 1);

    assertThat(history.versions()).containsExactly(1L, 2L, 3L, 4L);
    assertThat(results).hasSize(8).allSatisfy(r -> assertThat(r.passed()).as(r.name() + ": " + r.detail()).isTrue());
    assertThat(lookups.detail()).contains("10 lookups, 1 id_idx segment(s)");
  }

  @Test
  void acknowledgedAtAnotherVersionFails() {
    Ledger ledger = truthfulLedger(null);
    PlannedCommit append = ledger.entry(history.uuidAt(2)).commit();
    ledger.acknowledged(append, 3);

    assertThat(failed(new HistoryVerifier(List.of(history), ledger).verify()))
        .containsExactly("every acknowledged commit present exactly once");
  }

  @Test
  void definiteFailureThatLandedFails() {
    List<CheckResult> results = verify(ledger -> {
      PlannedCommit delete = ledger.entry(history.uuidAt(3)).commit();
      ledger.failed(delete, new CommitOutcome(CommitOutcome.Kind.RETRYABLE_CONFLICT, -1, 409, 14, "conflict"));
    });

    assertThat(failed(results)).contains("no commit reported failed landed");
  }

  @Test
  void rowsDifferingFromTheModelFail() {
    List<CheckResult> results = verifyWithEffects(Map.of(3L, new RowEffect(Map.of(), Set.of(4L))));

    assertThat(failed(results)).containsExactly("rows equal the model at every version",
        "indexed lookups at the latest version agree with the model");
    assertThat(results.stream().filter(r -> !r.passed()).findFirst().orElseThrow().detail())
        .contains("v3").contains("missing [3]").contains("extra [4]");
  }

  @Test
  void versionNoWriterSentFails() {
    table.lance().appendWithLance(10, 1);
    history = TableHistory.read(table);

    List<CheckResult> results = new HistoryVerifier(List.of(history), truthfulLedger(null, 4)).verify();

    assertThat(failed(results)).contains("every version is a transaction a writer sent");
  }

  /** Version 5: a group commit of two appends (rows 10 and 11), written as the coordinator writes one. */
  private List<Transaction> commitGroup() {
    List<Transaction> members = List.of(
        TransactionFactory.append(4, LanceProtos.fragments(table.lance().writeRows(10, 1))),
        TransactionFactory.append(4, LanceProtos.fragments(table.lance().writeRows(11, 1))));
    Transaction merged = GroupCommit.merge(TransactionFactory.newUuid(), 4, members, Map.of());
    TableOperations ops = table.storage();
    TableSnapshot current = ops.current();
    TableState next = ManifestBuilder.build(current.latest(), merged, CommitContext.of(5, Instant.now(),
        TransactionFiles.fileName(merged), WriterVersions.coordinator()));
    assertThat(ops.commit(current, NextVersion.of(5, current.scheme(), next, merged)))
        .isInstanceOf(dev.lancecommit.coordinator.table.CommitOutcome.Landed.class);
    history = TableHistory.read(table);
    return members;
  }

  private Ledger ledgerWithGroup(List<Transaction> members, long secondAnsweredAs) {
    Ledger ledger = truthfulLedger(null);
    PlannedCommit first = new PlannedCommit(table, OperationType.APPEND, members.get(0),
        new RowEffect(rows(10, 11), Set.of()));
    PlannedCommit second = new PlannedCommit(table, OperationType.APPEND, members.get(1),
        new RowEffect(rows(11, 12), Set.of()));
    ledger.sent(first);
    ledger.sent(second);
    ledger.acknowledged(first, 5);
    ledger.acknowledged(second, secondAnsweredAs);
    return ledger;
  }

  @Test
  void aGroupCommitPassesWhenEveryMemberLandedOnceAndWasAnsweredItsVersion() {
    List<Transaction> members = commitGroup();
    assertThat(history.membersAt(5)).containsExactly(members.get(0).getUuid(), members.get(1).getUuid());

    List<CheckResult> results = new HistoryVerifier(List.of(history), ledgerWithGroup(members, 5)).verify();

    assertThat(results).allSatisfy(r -> assertThat(r.passed()).as(r.name() + ": " + r.detail()).isTrue());
    assertThat(results).filteredOn(r -> r.name().startsWith("every member of a group")).singleElement()
        .satisfies(r -> assertThat(r.detail()).startsWith("1 group commits of 2 transactions (largest 2)"));
    assertThat(results).filteredOn(r -> r.name().startsWith("rows equal")).singleElement()
        .satisfies(r -> assertThat(r.detail()).contains("5/5 versions compared"));
  }

  @Test
  void aGroupMemberAnsweredAnotherVersionFails() {
    List<Transaction> members = commitGroup();
    List<CheckResult> results = new HistoryVerifier(List.of(history), ledgerWithGroup(members, 6)).verify();
    assertThat(failed(results)).containsExactly("every acknowledged commit present exactly once",
        "every member of a group commit answered with the group's version");
  }

  @Test
  void aGroupMemberToldItConflictedThatLandedFails() {
    List<Transaction> members = commitGroup();
    Ledger ledger = ledgerWithGroup(members, 5);
    ledger.failed(ledger.entry(members.get(1).getUuid()).commit(),
        new CommitOutcome(CommitOutcome.Kind.RETRYABLE_CONFLICT, -1, 409, 14, "conflict"));
    assertThat(failed(new HistoryVerifier(List.of(history), ledger).verify()))
        .contains("no commit reported failed landed");
  }

  private List<CheckResult> verify(Consumer<Ledger> lie) {
    Ledger ledger = truthfulLedger(null);
    lie.accept(ledger);
    return new HistoryVerifier(List.of(history), ledger).verify();
  }

  private List<CheckResult> verifyWithEffects(Map<Long, RowEffect> effects) {
    return new HistoryVerifier(List.of(history), truthfulLedger(effects)).verify();
  }

  private Ledger truthfulLedger(Map<Long, RowEffect> effectOverrides) {
    return truthfulLedger(effectOverrides, 4);
  }

  /** Acknowledges versions 1..upTo with the row effects stock Lance applied (or the overrides given). */
  private Ledger truthfulLedger(Map<Long, RowEffect> effectOverrides, long upTo) {
    Map<Long, RowEffect> effects = new HashMap<>();
    effects.put(1L, new RowEffect(rows(0, 5), Set.of()));
    effects.put(2L, new RowEffect(rows(5, 10), Set.of()));
    effects.put(3L, new RowEffect(Map.of(), Set.of(3L)));
    effects.put(4L, RowEffect.NONE);
    if (effectOverrides != null) {
      effects.putAll(effectOverrides);
    }
    OperationType[] types = {
        OperationType.CREATE, OperationType.APPEND, OperationType.DELETE, OperationType.CREATE_INDEX};
    Ledger ledger = new Ledger();
    for (long v = 1; v <= upTo; v++) {
      Transaction txn = Transaction.newBuilder().setUuid(history.uuidAt(v)).setReadVersion(v - 1).build();
      PlannedCommit commit = new PlannedCommit(table, types[(int) v - 1], txn, effects.get(v));
      ledger.sent(commit);
      ledger.acknowledged(commit, v);
    }
    return ledger;
  }

  private static Map<Long, String> rows(long from, long to) {
    Map<Long, String> rows = new HashMap<>();
    for (long id = from; id < to; id++) {
      rows.put(id, "v" + id);
    }
    return rows;
  }

  private static List<String> failed(List<CheckResult> results) {
    return results.stream().filter(r -> !r.passed()).map(CheckResult::name).toList();
  }
}
