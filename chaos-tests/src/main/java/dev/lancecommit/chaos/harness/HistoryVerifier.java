package dev.lancecommit.chaos.harness;

import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.Version;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * The after-run checks of the tables themselves, against the harness's {@link Ledger}: contiguous versions, every
 * acknowledged transaction exactly once at its acknowledged version, no definitely-failed transaction landed, no
 * version the writers did not send, every version readable by stock Lance, and each version's rows equal to the
 * model (the ledger's row effects replayed in version order; at the end, the acknowledged ones only). A version may
 * be a group commit of several writers' transactions: each check counts its members, and every acknowledged member
 * of a group must have been answered with the group's version.
 */
final class HistoryVerifier {
  private static final int MAX_EXAMPLES = 5;

  private final List<TableHistory> histories;
  private final Ledger ledger;

  HistoryVerifier(List<TableHistory> histories, Ledger ledger) {
    this.histories = histories;
    this.ledger = ledger;
  }

  List<CheckResult> verify() {
    List<CheckResult> results = new ArrayList<>();
    results.add(contiguous());
    Map<String, List<Long>> landed = landedVersions();
    results.add(acknowledgedOnce(landed));
    results.add(failedNeverLanded(landed));
    results.add(onlySentTransactions());
    results.add(groupMembersShareTheirVersion());
    results.addAll(rowsAndReadability());
    results.add(indexedLookups());
    return results;
  }

  private CheckResult contiguous() {
    boolean ok = true;
    List<String> parts = new ArrayList<>();
    for (TableHistory h : histories) {
      List<Long> versions = h.versions();
      boolean contiguous = !versions.isEmpty();
      for (int i = 0; i < versions.size(); i++) {
        contiguous &= versions.get(i) == i + 1;
      }
      contiguous &= h.problems().isEmpty();
      ok &= contiguous;
      parts.add(h.table().key() + " v1..v" + h.latest() + " (" + versions.size() + " versions)"
          + (contiguous ? "" : " NOT CONTIGUOUS " + gaps(versions) + " " + examples(h.problems())));
    }
    return CheckResult.of("versions contiguous per table", ok, String.join("; ", parts));
  }

  /** Per table key + uuid, the versions carrying that transaction (alone or as a member of a group). */
  private Map<String, List<Long>> landedVersions() {
    Map<String, List<Long>> landed = new HashMap<>();
    for (TableHistory h : histories) {
      for (long version : h.transactions().keySet()) {
        for (String uuid : h.membersAt(version)) {
          landed.computeIfAbsent(h.table().key() + "/" + uuid, k -> new ArrayList<>()).add(version);
        }
      }
    }
    return landed;
  }

  /**
   * Group commits: every member was sent to the table, and every member answered 200 was answered with the version
   * it shares (a member told 409 is caught by {@link #failedNeverLanded}).
   */
  private CheckResult groupMembersShareTheirVersion() {
    int groups = 0;
    int members = 0;
    int largest = 0;
    List<String> problems = new ArrayList<>();
    for (TableHistory h : histories) {
      for (long version : h.transactions().keySet()) {
        List<String> uuids = h.membersAt(version);
        if (uuids.size() < 2) {
          continue;
        }
        groups++;
        members += uuids.size();
        largest = Math.max(largest, uuids.size());
        for (String uuid : uuids) {
          Ledger.Entry entry = ledger.entry(uuid);
          if (entry != null && entry.status() == Ledger.Status.ACKNOWLEDGED && entry.version() != version) {
            problems.add(h.table().key() + " v" + version + " (group of " + uuids.size() + ") holds " + uuid
                + ", which was answered v" + entry.version());
          }
        }
      }
    }
    return CheckResult.of("every member of a group commit answered with the group's version", problems.isEmpty(),
        groups + " group commits of " + members + " transactions (largest " + largest + ")" + examples(problems));
  }

  private CheckResult acknowledgedOnce(Map<String, List<Long>> landed) {
    int acknowledged = 0;
    List<String> problems = new ArrayList<>();
    for (Ledger.Entry e : ledger.entries()) {
      if (e.status() != Ledger.Status.ACKNOWLEDGED) {
        continue;
      }
      acknowledged++;
      List<Long> versions = landed.getOrDefault(key(e), List.of());
      if (versions.size() != 1 || versions.get(0) != e.version()) {
        problems.add(e.commit().type().lanceName() + " " + e.commit().uuid() + " acknowledged as v" + e.version()
            + " on " + e.commit().table().key() + ", found at " + versions);
      }
    }
    return CheckResult.of("every acknowledged commit present exactly once", problems.isEmpty(),
        acknowledged + " acknowledged, " + problems.size() + " missing/misplaced/duplicated" + examples(problems));
  }

  private CheckResult failedNeverLanded(Map<String, List<Long>> landed) {
    int failed = 0;
    int unresolved = 0;
    int unresolvedLanded = 0;
    List<String> problems = new ArrayList<>();
    for (Ledger.Entry e : ledger.entries()) {
      List<Long> versions = landed.getOrDefault(key(e), List.of());
      if (e.status() == Ledger.Status.FAILED) {
        failed++;
        if (!versions.isEmpty()) {
          problems.add(e.commit().type().lanceName() + " " + e.commit().uuid() + " answered " + e.answer()
              + " but landed as " + versions + " on " + e.commit().table().key());
        }
      } else if (e.status() == Ledger.Status.UNRESOLVED || e.status() == Ledger.Status.PENDING) {
        unresolved++;
        if (!versions.isEmpty()) {
          unresolvedLanded++;
        }
      }
    }
    return CheckResult.of("no commit reported failed landed", problems.isEmpty(),
        failed + " definite failures (409/4xx), " + problems.size() + " of them landed; " + unresolved
            + " left unresolved (" + unresolvedLanded + " of those landed, which is allowed)" + examples(problems));
  }

  private CheckResult onlySentTransactions() {
    List<String> problems = new ArrayList<>();
    int versions = 0;
    for (TableHistory h : histories) {
      for (long version : h.transactions().keySet()) {
        versions++;
        for (String uuid : h.membersAt(version)) {
          Ledger.Entry sent = ledger.entry(uuid);
          if (sent == null || sent.commit().table() != h.table()) {
            problems.add(h.table().key() + " v" + version + " carries transaction " + uuid
                + " that no writer sent to this table");
          }
        }
      }
    }
    return CheckResult.of("every version is a transaction a writer sent", problems.isEmpty(),
        versions + " versions read, " + problems.size() + " foreign" + examples(problems));
  }

  /** Stock Lance reads every version; its rows must be the replayed model at that version. */
  private List<CheckResult> rowsAndReadability() {
    List<String> unreadable = new ArrayList<>();
    List<String> mismatches = new ArrayList<>();
    List<String> finalProblems = new ArrayList<>();
    int versionsRead = 0;
    int versionsCompared = 0;
    long finalRows = 0;
    for (TableHistory h : histories) {
      ChaosTable table = h.table();
      List<Long> lanceVersions = lanceVersions(table, unreadable);
      if (lanceVersions != null && !lanceVersions.equals(h.versions())) {
        unreadable.add(table.key() + ": Lance lists versions " + summarize(lanceVersions) + ", the store "
            + summarize(h.versions()));
      }
      Map<Long, String> model = new HashMap<>();
      boolean modelKnown = true;
      Map<Long, String> latestRows = null;
      for (long version : h.versions()) {
        List<String> uuids = h.membersAt(version);
        Ledger.Entry entry = null;
        if (uuids.isEmpty()) {
          modelKnown = false;
        }
        for (String uuid : uuids) {
          entry = ledger.entry(uuid);
          if (entry == null) {
            modelKnown = false;
          } else {
            entry.commit().effect().applyTo(model); // a group's members commute: their effects in member order
          }
        }
        Map<Long, String> rows;
        try {
          rows = readRows(table, version);
          versionsRead++;
        } catch (RuntimeException e) {
          unreadable.add(table.key() + " v" + version + ": " + e.getMessage());
          continue;
        }
        if (version == h.latest()) {
          latestRows = rows;
        }
        if (modelKnown) {
          versionsCompared++;
          String diff = diff(model, rows);
          if (diff != null) {
            mismatches.add(table.key() + " v" + version + " (" + (entry == null ? "?" : entry.commit().type()
                .lanceName()) + "): " + diff);
          }
        }
      }
      Map<Long, String> acknowledgedModel = acknowledgedModel(table);
      if (latestRows == null) {
        finalProblems.add(table.key() + ": latest version unreadable");
      } else {
        finalRows += latestRows.size();
        String diff = diff(acknowledgedModel, latestRows);
        if (diff != null) {
          finalProblems.add(table.key() + " v" + h.latest() + " vs acknowledged commits: " + diff);
        }
      }
    }
    int totalVersions = histories.stream().mapToInt(h -> h.versions().size()).sum();
    List<CheckResult> out = new ArrayList<>();
    out.add(CheckResult.of("every version readable by stock Lance", unreadable.isEmpty(),
        versionsRead + "/" + totalVersions + " versions opened and scanned" + examples(unreadable)));
    out.add(CheckResult.of("rows equal the model at every version", mismatches.isEmpty() && finalProblems.isEmpty()
            && versionsCompared == totalVersions,
        versionsCompared + "/" + totalVersions + " versions compared, " + mismatches.size() + " differ; latest "
            + "versions hold " + finalRows + " rows"
            + (finalProblems.isEmpty() ? ", equal to the acknowledged appends/deletes/updates" : "")
            + examples(mismatches) + examples(finalProblems)));
    return out;
  }

  /**
   * At each table's latest version, stock Lance answers {@code id = X} lookups with its scalar index allowed: one row
   * for sampled live ids, none for sampled deleted ids. Exercises the index metadata the coordinator committed.
   */
  private CheckResult indexedLookups() {
    List<String> problems = new ArrayList<>();
    List<String> parts = new ArrayList<>();
    for (TableHistory h : histories) {
      ChaosTable table = h.table();
      Map<Long, String> model = acknowledgedModel(table);
      List<Long> live = new ArrayList<>(new TreeSet<>(model.keySet()));
      List<Long> gone = new ArrayList<>();
      ledger.entriesOf(table).stream()
          .filter(e -> e.status() == Ledger.Status.ACKNOWLEDGED)
          .flatMap(e -> e.commit().effect().deletes().stream())
          .filter(id -> !model.containsKey(id))
          .distinct()
          .sorted()
          .forEach(gone::add);
      try (Dataset ds = table.lance().open()) {
        long indices = ds.getIndexes().stream().filter(i -> i.name().equals(TransactionPlanner.INDEX_NAME)).count();
        int lookups = 0;
        for (long id : sample(live, 20)) {
          lookups++;
          long found = count(ds, id);
          if (found != 1) {
            problems.add(table.key() + " v" + ds.version() + ": id " + id + " found " + found + " times");
          }
        }
        for (long id : sample(gone, 5)) {
          lookups++;
          long found = count(ds, id);
          if (found != 0) {
            problems.add(table.key() + " v" + ds.version() + ": deleted id " + id + " found " + found + " times");
          }
        }
        parts.add(table.key() + " " + lookups + " lookups, " + indices + " " + TransactionPlanner.INDEX_NAME
            + " segment(s)");
      } catch (Exception e) {
        problems.add(table.key() + ": " + e);
      }
    }
    return CheckResult.of("indexed lookups at the latest version agree with the model", problems.isEmpty(),
        String.join("; ", parts) + examples(problems));
  }

  private static List<Long> sample(List<Long> ids, int count) {
    if (ids.size() <= count) {
      return ids;
    }
    List<Long> out = new ArrayList<>();
    for (int i = 0; i < count; i++) {
      out.add(ids.get((int) ((long) i * ids.size() / count)));
    }
    return out;
  }

  private static long count(Dataset ds, long id) throws Exception {
    long rows = 0;
    ScanOptions options = new ScanOptions.Builder()
        .columns(List.of("id"))
        .filter("id = " + id)
        .useScalarIndex(true)
        .build();
    try (LanceScanner scanner = ds.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        rows += reader.getVectorSchemaRoot().getRowCount();
      }
    }
    return rows;
  }

  /** The rows the acknowledged transactions make, applied in acknowledged-version order. */
  private Map<Long, String> acknowledgedModel(ChaosTable table) {
    Map<Long, String> model = new HashMap<>();
    ledger.entriesOf(table).stream()
        .filter(e -> e.status() == Ledger.Status.ACKNOWLEDGED)
        .sorted(Comparator.comparingLong(Ledger.Entry::version))
        .forEach(e -> e.commit().effect().applyTo(model));
    return model;
  }

  private static List<Long> lanceVersions(ChaosTable table, List<String> unreadable) {
    try (Dataset ds = table.lance().open()) {
      List<Long> versions = new ArrayList<>();
      for (Version v : ds.listVersions()) {
        versions.add(v.getId());
      }
      versions.sort(null);
      return versions;
    } catch (RuntimeException e) {
      unreadable.add(table.key() + ": Lance cannot open the latest version: " + e.getMessage());
      return null;
    }
  }

  /** Id to value of every row of {@code version}, read by stock Lance; a repeated id is an error. */
  static Map<Long, String> readRows(ChaosTable table, long version) {
    Map<Long, String> rows = new HashMap<>();
    try (Dataset ds = table.lance().open(version);
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().columns(List.of("id", "value")).build());
        ArrowReader reader = scanner.scanBatches()) {
      if (ds.version() != version) {
        throw new IllegalStateException("Lance opened v" + ds.version() + " when asked for v" + version);
      }
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector ids = root.getVector("id");
        FieldVector values = root.getVector("value");
        for (int i = 0; i < root.getRowCount(); i++) {
          long id = ((Number) ids.getObject(i)).longValue();
          Object value = values.getObject(i);
          if (rows.put(id, value == null ? null : value.toString()) != null) {
            throw new IllegalStateException("row id " + id + " appears twice");
          }
        }
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e.toString(), e);
    }
    return rows;
  }

  /** Null when equal, else what differs (a few ids of each kind). */
  static String diff(Map<Long, String> expected, Map<Long, String> actual) {
    TreeSet<Long> missing = new TreeSet<>();
    TreeSet<Long> extra = new TreeSet<>();
    TreeMap<Long, String> wrong = new TreeMap<>();
    expected.forEach((id, value) -> {
      if (!actual.containsKey(id)) {
        missing.add(id);
      } else if (!java.util.Objects.equals(actual.get(id), value)) {
        wrong.put(id, actual.get(id) + " instead of " + value);
      }
    });
    actual.keySet().forEach(id -> {
      if (!expected.containsKey(id)) {
        extra.add(id);
      }
    });
    if (missing.isEmpty() && extra.isEmpty() && wrong.isEmpty()) {
      return null;
    }
    return "expected " + expected.size() + " rows, read " + actual.size() + "; missing " + head(missing) + ", extra "
        + head(extra) + ", wrong values " + head(wrong.entrySet());
  }

  private static String head(java.util.Collection<?> items) {
    return items.size() <= 5 ? items.toString() : items.stream().limit(5).toList() + "+" + (items.size() - 5);
  }

  private static String key(Ledger.Entry e) {
    return e.commit().table().key() + "/" + e.commit().uuid();
  }

  private static String gaps(List<Long> versions) {
    return "(" + summarize(versions) + ")";
  }

  private static String summarize(List<Long> versions) {
    if (versions.size() <= 8) {
      return versions.toString();
    }
    return versions.subList(0, 4) + "..." + versions.subList(versions.size() - 4, versions.size());
  }

  static String examples(List<String> problems) {
    if (problems.isEmpty()) {
      return "";
    }
    StringBuilder out = new StringBuilder();
    problems.stream().limit(MAX_EXAMPLES).forEach(p -> out.append("\n      - ").append(p));
    if (problems.size() > MAX_EXAMPLES) {
      out.append("\n      - ... and ").append(problems.size() - MAX_EXAMPLES).append(" more");
    }
    return out.toString();
  }
}
