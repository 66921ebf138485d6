package dev.lancecommit.rules.conflict;

import static org.assertj.core.api.Assertions.assertThat;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictMatrix.Pair;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import net.jqwik.api.Arbitraries;
import net.jqwik.api.Arbitrary;
import net.jqwik.api.Combinators;
import net.jqwik.api.Example;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.Provide;

class ConflictPropertiesTest {

  /** Two transactions of given kinds, ours reading version 1 and theirs committed as version 2, plus inputs. */
  record Case(Transaction ours, Transaction theirs, RebaseInputs inputs) {}

  private static Arbitrary<Transaction> txn(OperationKind kind) {
    return Arbitraries.randomValue(r -> RandomTxns.of(kind, r));
  }

  private static Arbitrary<RebaseInputs> inputs(boolean rebaseAllowed) {
    return Arbitraries.randomValue(r -> RandomTxns.inputs(r, rebaseAllowed));
  }

  private static Arbitrary<Case> cases(Pair pair, Arbitrary<RebaseInputs> inputs) {
    return Combinators.combine(txn(pair.ours()), txn(pair.theirs()), inputs).as(Case::new);
  }

  private static Arbitrary<Pair> anyPair() {
    Arbitrary<OperationKind> kinds = Arbitraries.of(OperationKind.values());
    return Combinators.combine(kinds, kinds).as(Pair::new);
  }

  @Provide
  Arbitrary<Case> anyCase() {
    return anyPair().flatMap(pair -> cases(pair, Arbitraries.of(true, false).flatMap(ConflictPropertiesTest::inputs)));
  }

  /** The pairs lance-format.md marks X (the hand-transcribed table of ConflictMatrixTest). */
  static List<Pair> referenceIncompatiblePairs() {
    List<Pair> pairs = new ArrayList<>();
    ConflictMatrixTest.expectedTable().forEach((ours, row) -> row.forEach((theirs, symbol) -> {
      if (symbol.equals("X")) {
        pairs.add(new Pair(ours, theirs));
      }
    }));
    return pairs;
  }

  @Provide
  Arbitrary<Case> incompatibleCase() {
    return Arbitraries.of(referenceIncompatiblePairs())
        .flatMap(pair -> cases(pair, Arbitraries.of(true, false).flatMap(ConflictPropertiesTest::inputs)));
  }

  /** Cells (A,B) whose mirror (B,A) uses the same symmetric condition. */
  static List<Pair> symmetricPairs() {
    ConflictMatrix matrix = ConflictMatrix.standard();
    List<Pair> pairs = new ArrayList<>();
    for (OperationKind a : OperationKind.values()) {
      for (OperationKind b : OperationKind.values()) {
        if (matrix.cell(a, b) instanceof Cell.Conditional cell && cell.condition().symmetric()
            && matrix.cell(b, a) instanceof Cell.Conditional mirror && mirror.condition() == cell.condition()) {
          pairs.add(new Pair(a, b));
        }
      }
    }
    return pairs;
  }

  @Provide
  Arbitrary<Case> symmetricCase() {
    return Arbitraries.of(symmetricPairs()).flatMap(pair -> cases(pair, inputs(true)));
  }

  @Provide
  Arbitrary<List<Transaction>> committedSince() {
    return Arbitraries.of(OperationKind.values()).flatMap(ConflictPropertiesTest::txn).list().ofMinSize(1).ofMaxSize(3);
  }

  @Property(tries = 500)
  void theMatrixIsTotalAndTheResolverAnswersEveryPair(@ForAll("anyCase") Case c) {
    Cell cell = ConflictMatrix.standard().cell(OperationKind.of(c.ours()), OperationKind.of(c.theirs()));
    assertThat(cell).isNotNull();
    assertThat(cell.symbol()).isNotBlank();
    ConflictOutcome outcome = ConflictResolver.check(c.ours(), c.theirs(), 2, c.inputs());
    assertThat(outcome.kind()).isNotEqualTo(Kind.ALREADY_COMMITTED);
    assertThat(outcome.reason()).contains(OperationKind.of(c.ours()).lanceName())
        .contains(OperationKind.of(c.theirs()).lanceName()).contains("version 2");
  }

  @Property(tries = 500)
  void neverCompatibleWhereTheReferenceSaysIncompatible(@ForAll("incompatibleCase") Case c) {
    ConflictOutcome outcome = ConflictResolver.check(c.ours(), c.theirs(), 2, c.inputs());
    assertThat(outcome.kind()).isIn(Kind.INCOMPATIBLE, Kind.RETRYABLE);
    if (c.inputs().rebaseAllowed()) {
      assertThat(outcome.kind()).isEqualTo(Kind.INCOMPATIBLE);
    }
  }

  @Property(tries = 500)
  void symmetricConditionsAnswerTheSameBothWays(@ForAll("symmetricCase") Case c) {
    Kind forward = ConflictResolver.check(c.ours(), c.theirs(), 2, c.inputs()).kind();
    Kind backward = ConflictResolver.check(c.theirs(), c.ours(), 2, c.inputs()).kind();
    assertThat(backward).isEqualTo(forward);
  }

  @Property(tries = 300)
  void withoutRebaseNothingCommittedInBetweenIsEverCompatible(
      @ForAll("anyCase") Case c, @ForAll("committedSince") List<Transaction> since) {
    List<CommittedTransaction> committed = new ArrayList<>();
    for (int i = 0; i < since.size(); i++) {
      committed.add(new CommittedTransaction(2 + i, since.get(i)));
    }
    RebaseInputs noRebase = c.inputs().toBuilder().rebaseAllowed(false).build();
    ConflictOutcome outcome = ConflictResolver.checkAll(c.ours(), committed, noRebase);
    assertThat(outcome.kind()).isEqualTo(Kind.RETRYABLE);
    assertThat(outcome.rule()).isEqualTo("no-rebase");
  }

  @Property(tries = 500)
  void aRebaseOnlyNamesFragmentsOursModifies(@ForAll("anyCase") Case c) {
    ConflictOutcome outcome = ConflictResolver.check(c.ours(), c.theirs(), 2, c.inputs());
    if (outcome.kind() == Kind.REBASE) {
      assertThat(outcome.rule()).isEqualTo("du");
      assertThat(FragmentOverlap.modifiedFragmentIds(c.ours())).containsAll(outcome.rebaseFragments());
      assertThat(c.inputs().hasAffectedRows()).isTrue();
    }
  }

  @Example
  void theSymmetricPairsAreTheOnesTheReferenceNames() {
    assertThat(symmetricPairs()).contains(
        new Pair(OperationKind.DELETE, OperationKind.REWRITE), new Pair(OperationKind.REWRITE, OperationKind.DELETE),
        new Pair(OperationKind.CREATE_INDEX, OperationKind.DATA_REPLACEMENT),
        new Pair(OperationKind.MERGE, OperationKind.UPDATE_CONFIG),
        new Pair(OperationKind.APPEND, OperationKind.PROJECT),
        new Pair(OperationKind.UPDATE_CONFIG, OperationKind.UPDATE_CONFIG),
        new Pair(OperationKind.UPDATE_BASES, OperationKind.UPDATE_BASES));
    assertThat(referenceIncompatiblePairs()).contains(new Pair(OperationKind.APPEND, OperationKind.OVERWRITE))
        .hasSizeGreaterThan(50);
    Map<OperationKind, Map<OperationKind, String>> table = ConflictMatrixTest.expectedTable();
    assertThat(table.get(OperationKind.MERGE).get(OperationKind.PROJECT)).isEqualTo("X");
  }
}
