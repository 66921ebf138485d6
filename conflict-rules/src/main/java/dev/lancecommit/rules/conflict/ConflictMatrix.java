package dev.lancecommit.rules.conflict;

import static dev.lancecommit.rules.OperationKind.APPEND;
import static dev.lancecommit.rules.OperationKind.CLONE;
import static dev.lancecommit.rules.OperationKind.CREATE_INDEX;
import static dev.lancecommit.rules.OperationKind.DATA_OVERLAY;
import static dev.lancecommit.rules.OperationKind.DATA_REPLACEMENT;
import static dev.lancecommit.rules.OperationKind.DELETE;
import static dev.lancecommit.rules.OperationKind.MERGE;
import static dev.lancecommit.rules.OperationKind.OVERWRITE;
import static dev.lancecommit.rules.OperationKind.PROJECT;
import static dev.lancecommit.rules.OperationKind.RESERVE_FRAGMENTS;
import static dev.lancecommit.rules.OperationKind.RESTORE;
import static dev.lancecommit.rules.OperationKind.REWRITE;
import static dev.lancecommit.rules.OperationKind.UPDATE;
import static dev.lancecommit.rules.OperationKind.UPDATE_BASES;
import static dev.lancecommit.rules.OperationKind.UPDATE_CONFIG;
import static dev.lancecommit.rules.OperationKind.UPDATE_MEM_WAL_STATE;
import static dev.lancecommit.rules.OperationKind.USER_OPERATION;

import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumMap;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.Set;

/**
 * Lance's conflict matrix as data: rows are the committing operation (ours), columns the committed one (theirs).
 * A cell is C (compatible), R (retryable), X (incompatible) or a condition id; "a+b" checks a then b (Lance's
 * pre-checks run before the per-operation rule); "a/b" is a for Nov-2025 MemWAL entries and b for 2026 ones
 * ({@link GenerationDispatch}). Baseline: the Nov-2025 matrix of lance-format.md §5, with the 2026
 * changes of §7 that the protobuf can express; SPEC.md is generated from {@link #standard()}.
 */
public final class ConflictMatrix {

  /** Column order of the rows below; must match {@link OperationKind}'s declaration order. */
  private static final String COLUMNS = "App Del Ovw CrI Rwr Mrg Rst Rsv Upd Prj UpC DRp MWS Cln UpB DOv UOp";

  private static final ConflictMatrix STANDARD = new Builder()
      //                               App Del Ovw CrI Rwr Mrg Rst Rsv Upd    Prj    UpC DRp MWS Cln UpB DOv UOp
      .row(APPEND,                    "C   C   X   C   C   n1  X   C   C      n1     C   C   X   C   C   R   R")
      .row(DELETE,                    "C   du  X   C   o1  R   X   C   du     C      C   o1  X   C   C   R   R")
      .row(OVERWRITE,                 "C   C   k4  C   C   C   C   C   C      C      k1  C   X   C   C   R   R")
      .row(CREATE_INDEX,              "C   C   X   f1  i1  C   X   C   i4     C      C   i2  w2  C   C   R   R")
      .row(REWRITE,                   "C   o1  X   i3  r1  R   X   C   o1     C      C   o1  C   C   C   R   R")
      .row(MERGE,                     "R   R   X   C   R   R   X   C   R      X      s1  R   X   C   C   R   R")
      .row(RESTORE,                   "C   C   C   C   C   C   C   C   C      C      C   C   X   C   C   R   R")
      .row(RESERVE_FRAGMENTS,         "C   C   X   C   C   C   X   C   C      C      C   C   C   C   C   R   R")
      .row(UPDATE,                    "p1  du  X   C   o1  R   X   C   p1+du  n1     C   o1  m1/w1 C C   R   R")
      .row(PROJECT,                   "n1  C   X   C   C   R   X   C   n1     R      C   n1  X   C   C   R   R")
      .row(UPDATE_CONFIG,             "C   C   k2  C   C   s1  C   C   C      C      k3  C   C   C   C   R   R")
      .row(DATA_REPLACEMENT,          "C   d2  X   i2  o1  R   X   C   d2     n1+d2  C   d1  X   C   C   R   R")
      .row(UPDATE_MEM_WAL_STATE,      "X   X   X   w3  C   X   X   C   m2/w1  X      C   X   m3/w1 X C   X   R")
      .row(CLONE,                     "C   C   C   C   C   C   C   C   C      C      C   C   C   C   C   R   R")
      .row(UPDATE_BASES,              "C   C   C   C   C   C   C   C   C      C      C   C   C   C   b1  R   R")
      .row(DATA_OVERLAY,              "R   R   X   R   R   R   X   R   R      R      R   R   X   R   R   R   R")
      .row(USER_OPERATION,            "X   X   X   X   X   X   X   X   X      X      X   X   X   X   X   X   X")
      .note(DATA_REPLACEMENT, MERGE, "[2026] a Merge rewrites the whole fragment list, so Lance 2026 asks the"
          + " replacement to retry (Nov-2025 answered C)")
      .note(UPDATE_MEM_WAL_STATE, DATA_OVERLAY, "[2026] Lance: a MemWAL state update does not rebase over data"
          + " operations")
      .noteRow(DATA_OVERLAY, "[2026] DataOverlay is unstable (reader flag 64) and its overlay files are opaque bytes"
          + " in this build, so no commutation can be proven: R (re-run on the new version), and X where Lance answers"
          + " X because the committed operation replaces or bypasses the overlaid fragments (Overwrite, Restore,"
          + " UpdateMemWalState)")
      .noteRow(USER_OPERATION, "[2026] UserOperation is the draft \"Transaction V2\" that Lance refuses on load; this"
          + " build can never apply it, so retrying cannot help")
      .noteColumn(DATA_OVERLAY, "[2026] a committed DataOverlay is opaque to this build; re-running on top of it is"
          + " always safe, so R (Lance 2026 lets some operations commute with it)")
      .noteColumn(USER_OPERATION, "[2026] a committed UserOperation cannot be interpreted; re-running on top of it is"
          + " always safe, so R")
      .build();

  private final Map<OperationKind, Map<OperationKind, Cell>> cells;
  private final List<ConflictCondition> conditions;

  private ConflictMatrix(Map<OperationKind, Map<OperationKind, Cell>> cells, List<ConflictCondition> conditions) {
    this.cells = cells;
    this.conditions = conditions;
  }

  /** The matrix this build enforces. */
  public static ConflictMatrix standard() {
    return STANDARD;
  }

  /** The operations in row and column order. */
  public List<OperationKind> operations() {
    return List.of(OperationKind.values());
  }

  /** The cell for ours (committing) against theirs (committed). Total: every pair has one. */
  public Cell cell(OperationKind ours, OperationKind theirs) {
    return cells.get(Objects.requireNonNull(ours, "ours")).get(Objects.requireNonNull(theirs, "theirs"));
  }

  /** The named conditions the matrix uses (directly or inside an "a+b" cell), in SPEC.md order. */
  public List<ConflictCondition> conditions() {
    return conditions;
  }

  public Optional<ConflictCondition> condition(String name) {
    return conditions.stream().filter(c -> c.name().equals(name)).findFirst();
  }

  /** The cells that use a condition, directly or inside an "a+b" cell, row by row. */
  public List<Pair> cellsUsing(ConflictCondition condition) {
    List<Pair> pairs = new ArrayList<>();
    for (OperationKind ours : operations()) {
      for (OperationKind theirs : operations()) {
        if (parts(cell(ours, theirs)).contains(condition)) {
          pairs.add(new Pair(ours, theirs));
        }
      }
    }
    return pairs;
  }

  /** The matrix's short column name of an operation, e.g. "CrI". */
  public static String abbreviation(OperationKind kind) {
    return COLUMNS.split(" ")[kind.ordinal()];
  }

  /** The stable rule name of a constant cell, e.g. "append-vs-overwrite". */
  public static String constantRuleName(OperationKind ours, OperationKind theirs) {
    return kebab(ours.lanceName()) + "-vs-" + kebab(theirs.lanceName());
  }

  private static String kebab(String camel) {
    return camel.replaceAll("([a-z])([A-Z])", "$1-$2").toLowerCase(java.util.Locale.ROOT);
  }

  private static List<ConflictCondition> parts(Cell cell) {
    if (cell instanceof Cell.Conditional conditional) {
      if (conditional.condition() instanceof SequenceCondition sequence) {
        return sequence.parts();
      }
      if (conditional.condition() instanceof GenerationDispatch dispatch) {
        return dispatch.parts();
      }
      return List.of(conditional.condition());
    }
    return List.of();
  }

  /** A (ours, theirs) cell address. */
  public record Pair(OperationKind ours, OperationKind theirs) {}

  private static final class Builder {
    private final Map<OperationKind, String[]> rows = new EnumMap<>(OperationKind.class);
    private final Map<Pair, String> cellNotes = new LinkedHashMap<>();
    private final Map<OperationKind, String> rowNotes = new EnumMap<>(OperationKind.class);
    private final Map<OperationKind, String> columnNotes = new EnumMap<>(OperationKind.class);

    Builder() {
      List<String> columns = Arrays.asList(COLUMNS.split(" "));
      if (columns.size() != OperationKind.values().length) {
        throw new IllegalStateException("The matrix has " + columns.size() + " columns for "
            + OperationKind.values().length + " operations");
      }
    }

    Builder row(OperationKind ours, String tokens) {
      String[] split = tokens.trim().split("\\s+");
      if (split.length != OperationKind.values().length) {
        throw new IllegalStateException("Row " + ours + " has " + split.length + " cells");
      }
      if (rows.put(ours, split) != null) {
        throw new IllegalStateException("Row " + ours + " is given twice");
      }
      return this;
    }

    Builder note(OperationKind ours, OperationKind theirs, String note) {
      cellNotes.put(new Pair(ours, theirs), note);
      return this;
    }

    Builder noteRow(OperationKind ours, String note) {
      rowNotes.put(ours, note);
      return this;
    }

    Builder noteColumn(OperationKind theirs, String note) {
      columnNotes.put(theirs, note);
      return this;
    }

    ConflictMatrix build() {
      Map<String, ConflictCondition> named = Conditions.byName();
      Map<String, ConflictCondition> sequences = new LinkedHashMap<>();
      Set<ConflictCondition> used = new LinkedHashSet<>();
      Map<OperationKind, Map<OperationKind, Cell>> cells = new EnumMap<>(OperationKind.class);
      for (OperationKind ours : OperationKind.values()) {
        String[] row = rows.get(ours);
        if (row == null) {
          throw new IllegalStateException("The matrix has no row for " + ours);
        }
        Map<OperationKind, Cell> cellsOfRow = new EnumMap<>(OperationKind.class);
        for (OperationKind theirs : OperationKind.values()) {
          String token = row[theirs.ordinal()];
          Cell cell = switch (token) {
            case "C" -> constant(Kind.COMPATIBLE, ours, theirs);
            case "R" -> constant(Kind.RETRYABLE, ours, theirs);
            case "X" -> constant(Kind.INCOMPATIBLE, ours, theirs);
            default -> new Cell.Conditional(resolve(token, named, sequences));
          };
          parts(cell).forEach(used::add);
          cellsOfRow.put(theirs, cell);
        }
        cells.put(ours, Collections.unmodifiableMap(cellsOfRow));
      }
      for (Pair pair : cellNotes.keySet()) {
        if (!(cells.get(pair.ours()).get(pair.theirs()) instanceof Cell.Constant)) {
          throw new IllegalStateException("A note is attached to the non-constant cell " + pair);
        }
      }
      List<ConflictCondition> ordered = Conditions.ALL.stream().filter(used::contains).toList();
      return new ConflictMatrix(Collections.unmodifiableMap(cells), ordered);
    }

    private Cell constant(Kind kind, OperationKind ours, OperationKind theirs) {
      String note = cellNotes.getOrDefault(new Pair(ours, theirs),
          rowNotes.getOrDefault(ours, columnNotes.getOrDefault(theirs, "")));
      return new Cell.Constant(kind, constantRuleName(ours, theirs), note);
    }

    private static ConflictCondition resolve(
        String token, Map<String, ConflictCondition> named, Map<String, ConflictCondition> sequences) {
      if (token.contains("/") && !token.contains("+")) {
        String[] generations = token.split("/");
        if (generations.length != 2) {
          throw new IllegalStateException("A MemWAL cell names two conditions, not '" + token + "'");
        }
        return sequences.computeIfAbsent(token, t -> new GenerationDispatch(
            resolve(generations[0], named, sequences), resolve(generations[1], named, sequences)));
      }
      if (!token.contains("+")) {
        ConflictCondition condition = named.get(token);
        if (condition == null) {
          throw new IllegalStateException("Unknown condition '" + token + "' in the matrix");
        }
        return condition;
      }
      return sequences.computeIfAbsent(token, t -> new SequenceCondition(
          Arrays.stream(t.split("\\+")).map(part -> resolve(part, named, sequences)).toList()));
    }
  }
}
