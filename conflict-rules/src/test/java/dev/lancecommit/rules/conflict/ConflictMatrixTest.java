package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.OperationKind.*;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.ArrayList;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * Every cell of the matrix against a table transcribed by hand from lance-format.md: first the Nov-2025 matrix of §5
 * exactly as printed there ("ovl" = "R if overlap", "D/U" = the D/U-rebase rule), then the 2026 edits of §7 as a
 * separate list, then the rows and columns of the two 2026 operations.
 */
class ConflictMatrixTest {

  /** §5.1, rows = ours, columns = theirs, App Del Ovw CrI Rwr Mrg Rst Rsv Upd Prj UpC DRp MWS Cln UpB. */
  private static final String NOV_2025 = """
      Append            C   C   X   C   C   C   X   C   C   C   C   C   X   C   C
      Delete            C   D/U X   C   ovl R   X   C   D/U C   C   ovl X   C   C
      Update            C   D/U X   C   ovl R   X   C   D/U C   C   ovl m1  C   C
      Overwrite         C   C   k1  C   C   C   C   C   C   C   k1  C   X   C   C
      CreateIndex       C   C   X   f1  i1  C   X   C   C   C   C   i2  X   C   C
      Rewrite           C   ovl X   i3  r1  R   X   C   ovl C   C   ovl C   C   C
      Merge             R   R   X   C   R   R   X   C   R   X   C   R   X   C   C
      Project           C   C   X   C   C   R   X   C   C   R   C   C   X   C   C
      Restore           C   C   C   C   C   C   C   C   C   C   C   C   X   C   C
      ReserveFragments  C   C   X   C   C   C   X   C   C   C   C   C   C   C   C
      UpdateConfig      C   C   k2  C   C   C   C   C   C   C   k3  C   C   C   C
      DataReplacement   C   C   X   i2  ovl C   X   C   C   C   C   d1  X   C   C
      UpdateMemWalState X   X   X   C   C   X   X   C   m2  X   C   X   m3  X   C
      Clone             C   C   C   C   C   C   C   C   C   C   C   C   C   C   C
      UpdateBases       C   C   C   C   C   C   C   C   C   C   C   C   C   C   b1
      """;

  private static final List<OperationKind> NOV_2025_COLUMNS = List.of(APPEND, DELETE, OVERWRITE, CREATE_INDEX,
      REWRITE, MERGE, RESTORE, RESERVE_FRAGMENTS, UPDATE, PROJECT, UPDATE_CONFIG, DATA_REPLACEMENT,
      UPDATE_MEM_WAL_STATE, CLONE, UPDATE_BASES);

  /** Reference notation -> this build's condition ids. */
  private static final Map<String, String> RENAMES = Map.of("ovl", "o1", "D/U", "du");

  static Map<OperationKind, Map<OperationKind, String>> expectedTable() {
    Map<OperationKind, Map<OperationKind, String>> table = new EnumMap<>(OperationKind.class);
    for (String line : NOV_2025.strip().split("\n")) {
      String[] tokens = line.trim().split("\\s+");
      OperationKind ours = byLanceName(tokens[0]);
      Map<OperationKind, String> row = new EnumMap<>(OperationKind.class);
      for (int i = 0; i < NOV_2025_COLUMNS.size(); i++) {
        row.put(NOV_2025_COLUMNS.get(i), RENAMES.getOrDefault(tokens[i + 1], tokens[i + 1]));
      }
      table.put(ours, row);
    }
    // §7, 2026 changes.
    table.get(OVERWRITE).put(OVERWRITE, "k4");                   // Overwrite x Overwrite -> R, X on config keys
    table.get(CREATE_INDEX).put(UPDATE, "i4");                   // CreateIndex vs Update prunes bitmaps
    table.get(MERGE).put(UPDATE_CONFIG, "s1");                   // Merge vs schema/field metadata, both ways
    table.get(UPDATE_CONFIG).put(MERGE, "s1");
    table.get(PROJECT).put(APPEND, "n1");                        // nullability pre-check, both ways
    table.get(PROJECT).put(UPDATE, "n1");
    table.get(PROJECT).put(DATA_REPLACEMENT, "n1");
    table.get(APPEND).put(PROJECT, "n1");
    table.get(APPEND).put(MERGE, "n1");
    table.get(UPDATE).put(PROJECT, "n1");
    table.get(DATA_REPLACEMENT).put(PROJECT, "n1+d2");           // then: field dropped -> X
    table.get(DATA_REPLACEMENT).put(DELETE, "d2");               // fragment vanished -> X
    table.get(DATA_REPLACEMENT).put(UPDATE, "d2");               // vanished -> X, moved/rewritten -> R
    table.get(DATA_REPLACEMENT).put(MERGE, "R");
    table.get(UPDATE).put(APPEND, "p1");                         // primary-key inserted_rows filters
    table.get(UPDATE).put(UPDATE, "p1+du");
    // MemWAL keyed on shard + generation of compacted SSTables; Nov-2025 entries keep m1..m3.
    table.get(UPDATE).put(UPDATE_MEM_WAL_STATE, "m1/w1");
    table.get(UPDATE_MEM_WAL_STATE).put(UPDATE, "m2/w1");
    table.get(UPDATE_MEM_WAL_STATE).put(UPDATE_MEM_WAL_STATE, "m3/w1");
    table.get(CREATE_INDEX).put(UPDATE_MEM_WAL_STATE, "w2");
    table.get(UPDATE_MEM_WAL_STATE).put(CREATE_INDEX, "w3");
    // DataOverlay and UserOperation: conservative R, X where Lance says X or the operation cannot be applied.
    for (OperationKind ours : NOV_2025_COLUMNS) {
      table.get(ours).put(DATA_OVERLAY, ours == UPDATE_MEM_WAL_STATE ? "X" : "R");
      table.get(ours).put(USER_OPERATION, "R");
    }
    Map<OperationKind, String> overlay = new EnumMap<>(OperationKind.class);
    for (OperationKind theirs : OperationKind.values()) {
      overlay.put(theirs, List.of(OVERWRITE, RESTORE, UPDATE_MEM_WAL_STATE).contains(theirs) ? "X" : "R");
    }
    table.put(DATA_OVERLAY, overlay);
    Map<OperationKind, String> user = new EnumMap<>(OperationKind.class);
    for (OperationKind theirs : OperationKind.values()) {
      user.put(theirs, "X");
    }
    table.put(USER_OPERATION, user);
    return table;
  }

  private static OperationKind byLanceName(String name) {
    for (OperationKind kind : OperationKind.values()) {
      if (kind.lanceName().equals(name)) {
        return kind;
      }
    }
    throw new IllegalArgumentException(name);
  }

  @Test
  void everyCellMatchesTheReference() {
    Map<OperationKind, Map<OperationKind, String>> expected = expectedTable();
    List<String> mismatches = new ArrayList<>();
    for (OperationKind ours : OperationKind.values()) {
      for (OperationKind theirs : OperationKind.values()) {
        String want = expected.get(ours).get(theirs);
        String got = ConflictMatrix.standard().cell(ours, theirs).symbol();
        if (!want.equals(got)) {
          mismatches.add(ours.lanceName() + " x " + theirs.lanceName() + ": expected " + want + ", got " + got);
        }
      }
    }
    assertThat(mismatches).isEmpty();
    assertThat(expected.values().stream().mapToInt(Map::size).sum())
        .isEqualTo(OperationKind.values().length * OperationKind.values().length);
  }

  @Test
  void constantCellsAnswerTheirKindThroughTheResolver() {
    Map<OperationKind, Map<OperationKind, String>> expected = expectedTable();
    for (OperationKind ours : OperationKind.values()) {
      for (OperationKind theirs : OperationKind.values()) {
        String want = expected.get(ours).get(theirs);
        Kind kind = switch (want) {
          case "C" -> Kind.COMPATIBLE;
          case "R" -> Kind.RETRYABLE;
          case "X" -> Kind.INCOMPATIBLE;
          default -> null;
        };
        if (kind == null) {
          continue;
        }
        ConflictOutcome outcome =
            ConflictResolver.check(Txns.minimal(ours), Txns.minimal(theirs), 2, RebaseInputs.defaults());
        assertThat(outcome.kind()).as(ours + " x " + theirs).isEqualTo(kind);
        assertThat(outcome.rule()).isEqualTo(ConflictMatrix.constantRuleName(ours, theirs));
      }
    }
  }

  @Test
  void constantRulesHaveStableKebabNames() {
    assertThat(ConflictMatrix.standard().cell(APPEND, OVERWRITE))
        .isEqualTo(new Cell.Constant(Kind.INCOMPATIBLE, "append-vs-overwrite", ""));
    assertThat(((Cell.Constant) ConflictMatrix.standard().cell(UPDATE_MEM_WAL_STATE, REWRITE)).rule())
        .isEqualTo("update-mem-wal-state-vs-rewrite");
    assertThat(((Cell.Constant) ConflictMatrix.standard().cell(DATA_REPLACEMENT, MERGE)).note()).contains("[2026]");
  }

  @Test
  void everyConditionIsUsedAndListedOnce() {
    ConflictMatrix matrix = ConflictMatrix.standard();
    assertThat(matrix.conditions()).extracting(ConflictCondition::name).containsExactly(
        "o1", "du", "k1", "k2", "k3", "k4", "f1", "i1", "i2", "i3", "i4", "r1", "d1", "d2", "m1", "m2", "m3", "w1",
        "w2", "w3", "b1", "n1", "s1", "p1");
    for (ConflictCondition condition : matrix.conditions()) {
      assertThat(matrix.cellsUsing(condition)).as(condition.name()).isNotEmpty();
      assertThat(matrix.condition(condition.name())).contains(condition);
    }
    assertThat(matrix.cellsUsing(matrix.condition("d2").orElseThrow())).containsExactly(
        new ConflictMatrix.Pair(DATA_REPLACEMENT, DELETE), new ConflictMatrix.Pair(DATA_REPLACEMENT, UPDATE),
        new ConflictMatrix.Pair(DATA_REPLACEMENT, PROJECT));
  }

  @Test
  void abbreviationsFollowTheReference() {
    assertThat(ConflictMatrix.abbreviation(APPEND)).isEqualTo("App");
    assertThat(ConflictMatrix.abbreviation(UPDATE_MEM_WAL_STATE)).isEqualTo("MWS");
    assertThat(ConflictMatrix.abbreviation(USER_OPERATION)).isEqualTo("UOp");
  }

  @Test
  void cellsRefuseNonsense() {
    assertThatThrownBy(() -> new Cell.Constant(Kind.REBASE, "x", "")).isInstanceOf(IllegalArgumentException.class);
    assertThatThrownBy(() -> ConflictMatrix.standard().cell(null, APPEND)).isInstanceOf(NullPointerException.class);
  }
}
