package dev.lancecommit.chaos.differential;

import java.util.EnumMap;
import java.util.Map;
import java.util.Optional;

/**
 * The summary of a differential run: rows are the operation committing second ("ours", as in SPEC.md), columns the
 * one committed first ("theirs"), plus a row for each operation committed alone.
 */
public final class AgreementMatrix {
  private final Map<LanceOperation, Map<LanceOperation, PairResult>> pairs = new EnumMap<>(LanceOperation.class);
  private final Map<LanceOperation, PairResult> alone = new EnumMap<>(LanceOperation.class);

  public synchronized void record(PairResult result) {
    if (result.second().isEmpty()) {
      alone.put(result.first(), result);
    } else {
      pairs.computeIfAbsent(result.second().get(), k -> new EnumMap<>(LanceOperation.class))
          .put(result.first(), result);
    }
  }

  public synchronized String render() {
    StringBuilder out = new StringBuilder();
    out.append("Lance 7.0.0 vs coordinator, every pair on read version ").append(BaseTable.READ_VERSION)
        .append(". Rows: committing second (ours); columns: committed first (theirs).\n")
        .append("Cell: C/R/X/E/U = both sides agree (committed / retryable / incompatible / failed / unsupported);\n")
        .append("      f<k> = the first commit already ended <k> on both sides;\n")
        .append("      a/b* = Lance a, coordinator b, an expected difference; ! = not what is expected;\n")
        .append("      # = both committed but the tables Lance reads back differ;\n")
        .append("      $ = the coordinator's answer is not the one its own SPEC.md gives.\n\n");
    int width = 6;
    out.append(pad("", 6));
    for (LanceOperation col : LanceOperation.values()) {
      out.append(pad(col.abbreviation(), width));
    }
    out.append('\n');
    for (LanceOperation row : LanceOperation.values()) {
      out.append(pad(row.abbreviation(), 6));
      for (LanceOperation col : LanceOperation.values()) {
        PairResult r = pairs.getOrDefault(row, Map.of()).get(col);
        out.append(pad(r == null ? "." : cell(r), width));
      }
      out.append('\n');
    }
    out.append('\n').append(pad("alone", 6));
    for (LanceOperation col : LanceOperation.values()) {
      PairResult r = alone.get(col);
      out.append(pad(r == null ? "." : cell(r), width));
    }
    out.append('\n');
    long agreed = all().filter(PairResult::classesAgree).count();
    long total = all().count();
    out.append('\n').append(agreed).append(" of ").append(total).append(" runs agree on the outcome class; ")
        .append(all().filter(r -> !r.contentDifferences().isEmpty()).count())
        .append(" where both committed read back differently.\n");
    out.append("\nExpected differences (reviewed):\n");
    for (ExpectedDifferences.Entry e : ExpectedDifferences.all()) {
      out.append("  ").append(e).append('\n');
    }
    out.append("\nOperations:\n");
    for (LanceOperation op : LanceOperation.values()) {
      out.append("  ").append(pad(op.abbreviation(), 6)).append(op.name()).append(": ").append(op.description())
          .append('\n');
    }
    return out.toString();
  }

  private java.util.stream.Stream<PairResult> all() {
    return java.util.stream.Stream.concat(alone.values().stream(),
        pairs.values().stream().flatMap(m -> m.values().stream()));
  }

  private static String cell(PairResult r) {
    String content = (r.contentDifferences().isEmpty() ? "" : "#") + (r.specInconsistency().isEmpty() ? "" : "$");
    Optional<ExpectedDifferences.Entry> expected = ExpectedDifferences.forPair(r.first(), r.second());
    String classes = r.classesAgree()
        ? letter(r.lanceClass())
        : letter(r.lanceClass()) + "/" + letter(r.coordinatorClass());
    String mark;
    if (expected.isPresent()) {
      boolean asExpected = expected.get().lanceClass().equals(r.lanceClass())
          && expected.get().coordinatorClass().equals(r.coordinatorClass());
      mark = asExpected ? "*" : "!";
    } else {
      mark = r.classesAgree() ? "" : "!";
    }
    return classes + mark + content;
  }

  private static String letter(String outcomeClass) {
    if (outcomeClass.startsWith("first ")) {
      return "f" + Outcome.Kind.valueOf(outcomeClass.substring(6)).letter();
    }
    return Outcome.Kind.valueOf(outcomeClass).letter();
  }

  private static String pad(String s, int width) {
    StringBuilder b = new StringBuilder(s);
    while (b.length() < width) {
      b.append(' ');
    }
    return b.append(' ').toString();
  }
}
