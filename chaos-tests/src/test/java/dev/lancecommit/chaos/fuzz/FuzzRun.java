package dev.lancecommit.chaos.fuzz;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.TextFormat;
import dev.lancecommit.chaos.differential.LanceReadProbe;
import dev.lancecommit.chaos.harness.ChaosTable;
import dev.lancecommit.chaos.harness.OperationType;
import dev.lancecommit.chaos.harness.PlannedCommit;
import dev.lancecommit.chaos.harness.TransactionPlanner;
import dev.lancecommit.coordinator.storage.LocalObjectStore;
import dev.lancecommit.coordinator.storage.ObjectStores;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Base64;
import java.util.Comparator;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;

/**
 * One seeded fuzz run against a running coordinator: real transactions from stock Lance
 * ({@link TransactionPlanner}: appends, deletes, updates, compactions, index builds), mutated copies of them sent as
 * protobuf and as JSON, and odd requests (table ids, headers, bodies too large or cut short). It records every answer
 * and follows every acknowledged version in a {@link RowModel}; {@link #violations} lists what broke an invariant.
 */
final class FuzzRun implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String NAMESPACE = "fuzz";

  private final Random random;
  private final String baseUrl;
  private final long maxBodyBytes;
  private final HttpClient http = HttpClient.newBuilder().version(HttpClient.Version.HTTP_1_1)
      .connectTimeout(Duration.ofSeconds(10)).build();
  private final RawHttp raw;
  private final Mutations mutations;
  private final TransactionPlanner planner;
  private final BufferAllocator allocator = new RootAllocator();
  private final Map<Path, List<Long>> fileIds = new HashMap<>();
  private final List<FuzzTable> tables = new ArrayList<>();
  private final List<Corpus> corpus = new ArrayList<>();
  private final List<String> committedUuids = new ArrayList<>();
  private final List<String> violations = new ArrayList<>();
  private final Map<String, Integer> statuses = new TreeMap<>();
  private int step;

  private record FuzzTable(ChaosTable chaos, RowModel model) {
    String joinedId() {
      return String.join("$", chaos.id());
    }
  }

  private record Corpus(FuzzTable table, Transaction txn) {}

  /** An answer: status (-1: the connection closed without one) and body. */
  private record Reply(int status, String body) {}

  FuzzRun(long seed, String baseUrl, long maxBodyBytes) {
    this.random = new Random(seed);
    this.baseUrl = baseUrl;
    this.maxBodyBytes = maxBodyBytes;
    this.raw = new RawHttp(baseUrl);
    this.mutations = new Mutations(random);
    this.planner = new TransactionPlanner(new Random(random.nextLong()));
  }

  List<String> violations() {
    return violations;
  }

  /** How often each kind of answer came, e.g. {@code "mutant 400/13": 812}. */
  Map<String, Integer> statuses() {
    return statuses;
  }

  /** Declares and creates {@code count} tables through the coordinator. */
  void createTables(int count, ObjectStores stores) throws IOException, InterruptedException {
    post("/v1/namespace/" + NAMESPACE + "/create", "application/json", "{}".getBytes(StandardCharsets.UTF_8));
    for (int i = 0; i < count; i++) {
      List<String> id = List.of(NAMESPACE, "t" + i);
      Reply declared = post("/v1/table/" + String.join("$", id) + "/declare", "application/json",
          "{}".getBytes(StandardCharsets.UTF_8));
      String location = JSON.readTree(declared.body()).get("location").asText();
      ChaosTable chaos = new ChaosTable(id, location, Map.of(), stores, 1_000_000L * (i + 1));
      FuzzTable table = new FuzzTable(chaos, new RowModel(Path.of(location), allocator, fileIds));
      tables.add(table);
      sendReal(table, TransactionPlanner.create(chaos, 20).transaction());
    }
  }

  /** {@code steps} random steps: real commits, mutants, odd requests. */
  void run(int steps) throws IOException, InterruptedException {
    for (step = 0; step < steps; step++) {
      int dice = random.nextInt(100);
      FuzzTable table = tables.get(random.nextInt(tables.size()));
      if (dice < 18 || corpus.isEmpty()) {
        if (!realCommit(table)) {
          return;
        }
      } else if (dice < 90) {
        mutant();
      } else {
        oddRequest();
      }
    }
  }

  /** After the run: the service still answers and still commits a real transaction on every table. */
  void checkStillServing() throws IOException, InterruptedException {
    HttpResponse<String> health = http.send(HttpRequest.newBuilder(URI.create(baseUrl + "/healthz")).GET().build(),
        HttpResponse.BodyHandlers.ofString());
    if (health.statusCode() != 200) {
      violations.add("GET /healthz answered " + health.statusCode() + " after the run");
    }
    for (FuzzTable table : tables) {
      PlannedCommit append = planner.plan(OperationType.APPEND, table.chaos(), table.model().version());
      sendReal(table, append.transaction());
    }
  }

  /**
   * Every version of every table opens and scans completely in stock Lance and holds exactly the rows the acknowledged
   * commits put there; the coordinator's own verify finds nothing wrong with the latest.
   */
  void checkTables() throws IOException, InterruptedException {
    for (FuzzTable table : tables) {
      LanceTables lance = table.chaos().lance();
      List<Long> versions;
      try {
        versions = lance.versions();
      } catch (Exception e) { // lance-core throws its IOException undeclared
        violations.add(table.joinedId() + ": stock Lance cannot list the table's versions: " + e);
        continue;
      }
      List<Long> acknowledged = new ArrayList<>(table.model().rowsByVersion().keySet());
      if (!versions.equals(acknowledged)) {
        violations.add(table.joinedId() + ": stock Lance lists versions " + versions + " but the coordinator "
            + "acknowledged " + acknowledged);
      }
      // Stock Lance reads every version in a child JVM first: on some damage lance-core aborts the process (a Rust
      // panic across JNI), which would end this run without naming the version.
      List<Map.Entry<Path, Long>> cases = versions.stream()
          .map(v -> Map.entry(Path.of(lance.uri()), v)).toList();
      List<String> verdicts = LanceReadProbe.verdicts(cases);
      for (int i = 0; i < versions.size(); i++) {
        long version = versions.get(i);
        if (!LanceReadProbe.readable(verdicts.get(i))) {
          violations.add(table.joinedId() + " version " + version + " cannot be read by stock Lance: "
              + verdicts.get(i) + "; its transaction: " + recordedTransaction(lance, version));
          continue;
        }
        List<Long> ids;
        try {
          ids = scan(lance, version);
        } catch (RuntimeException e) {
          violations.add(table.joinedId() + " version " + version + " cannot be scanned by stock Lance: " + e);
          continue;
        }
        List<Long> expected = table.model().rowsAt(version);
        if (expected != null && !ids.equals(expected)) {
          violations.add(table.joinedId() + " version " + version + ": stock Lance reads " + ids.size()
              + " rows, the acknowledged commits put " + expected.size() + " there: " + firstDifference(ids, expected));
        }
      }
      Reply verify = post("/v1/table/" + table.joinedId() + "/verify", "application/json",
          "{\"content\": true}".getBytes(StandardCharsets.UTF_8));
      if (verify.status() != 200 || !JSON.readTree(verify.body()).path("ok").asBoolean()) {
        violations.add(table.joinedId() + ": POST .../verify of the latest version answered " + verify);
      }
    }
  }

  /** The transaction recorded for a version (the manifest's), as this project decodes it, for a failure report. */
  private static String recordedTransaction(LanceTables lance, long version) {
    try {
      Path root = Path.of(lance.uri());
      TableOperations ops = TableOperations.of(new StorageLocation(new LocalObjectStore(root.getParent()),
          root.getFileName().toString()));
      return ops.readVersion(version).map(file -> TextFormat.shortDebugString(ops.transactionOf(file)))
          .orElse("(no manifest)");
    } catch (RuntimeException e) {
      return "(" + e + ")";
    }
  }

  int versionsChecked() {
    return tables.stream().mapToInt(t -> t.model().rowsByVersion().size()).sum();
  }

  // ---- steps -------------------------------------------------------------------------------------------------

  /** False when stock Lance cannot even plan on the table the acknowledged commits built: it is poisoned. */
  private boolean realCommit(FuzzTable table) throws IOException, InterruptedException {
    OperationType type = weighted();
    PlannedCommit planned;
    try {
      planned = planner.plan(type, table.chaos(), table.model().version());
    } catch (RuntimeException e) {
      violations.add("step " + step + ": stock Lance failed to plan a " + type + " on version "
          + table.model().version() + " of " + table.joinedId() + ": " + e);
      return false;
    }
    if (planned != null) {
      sendReal(table, planned.transaction());
    }
    return true;
  }

  private OperationType weighted() {
    int dice = random.nextInt(100);
    if (dice < 50) {
      return OperationType.APPEND;
    }
    if (dice < 70) {
      return OperationType.DELETE;
    }
    if (dice < 80) {
      return OperationType.UPDATE;
    }
    if (dice < 90) {
      return OperationType.REWRITE;
    }
    return OperationType.CREATE_INDEX;
  }

  /** An unmodified transaction stock Lance built on the latest version: it must commit. */
  private void sendReal(FuzzTable table, Transaction txn) throws IOException, InterruptedException {
    Reply reply = random.nextBoolean()
        ? post(commitPath(table.joinedId()), "application/x-protobuf", txn.toByteArray())
        : post(commitPath(table.joinedId()), "application/json", jsonBody(txn.toByteArray(), false));
    count("real", reply);
    if (reply.status() != 200) {
      violations.add("step " + step + ": a real " + txn.getOperationCase() + " on the latest version of "
          + table.joinedId() + " was refused: " + reply);
      return;
    }
    acknowledge(table, txn.toByteArray(), reply, "real " + txn.getOperationCase());
    corpus.add(new Corpus(table, txn));
  }

  private void mutant() throws IOException, InterruptedException {
    Corpus base = corpus.get(random.nextInt(corpus.size()));
    Corpus other = corpus.get(random.nextInt(corpus.size()));
    Mutations.Mutant mutant = mutations.mutate(base.txn(), other.txn(), committedUuids);
    FuzzTable target = random.nextInt(100) < 85 ? base.table() : tables.get(random.nextInt(tables.size()));
    boolean json = random.nextBoolean();
    byte[] body = json ? jsonBody(mutant.bytes(), random.nextInt(100) < 15) : mutant.bytes();
    Reply reply;
    try {
      reply = post(commitPath(target.joinedId()), json ? "application/json" : "application/x-protobuf", body);
    } catch (IOException e) {
      violations.add("step " + step + ": no answer to a mutant (" + mutant.description() + "): " + e);
      return;
    }
    count("mutant", reply);
    if (reply.status() == 200) {
      // printed as it happens: a Rust panic in stock Lance aborts the JVM, and this is then the trail to follow
      System.out.println("fuzz step " + step + ": " + target.joinedId() + " acknowledged mutant ("
          + mutant.description() + ") " + reply.body());
      acknowledge(target, mutant.bytes(), reply, "mutant (" + mutant.description() + ")");
    }
  }

  private void acknowledge(FuzzTable table, byte[] sent, Reply reply, String what) throws IOException {
    Transaction txn = Mutations.parseOrNull(sent);
    long version = JSON.readTree(reply.body()).path("version").asLong(-1);
    if (txn == null) {
      violations.add("step " + step + ": " + what + " was acknowledged as version " + version
          + " though its bytes are no Transaction");
      return;
    }
    String kind = what.startsWith("real") ? "real" : "mutant";
    statuses.merge(kind + (version <= table.model().version() ? " answered again" : " new version"), 1,
        Integer::sum);
    if (version <= table.model().version()) {
      java.util.Set<Long> original = table.model().versionsOf(txn.getUuid());
      if (!original.contains(version)) {
        violations.add("step " + step + ": " + what + " was answered with existing version " + version + " of "
            + table.joinedId() + " (model at " + table.model().version() + "), which transaction " + txn.getUuid()
            + " did not commit (it committed versions " + original + "): " + reply.body());
      }
      return;
    }
    try {
      table.model().apply(txn, version);
      committedUuids.add(txn.getUuid());
    } catch (AssertionError | RuntimeException e) {
      violations.add("step " + step + ": " + what + " acknowledged as version " + version + ": " + e.getMessage());
    }
  }

  private void oddRequest() throws IOException, InterruptedException {
    FuzzTable table = tables.get(random.nextInt(tables.size()));
    // a transaction this table already committed, so that any 200 can only be that commit answered again (one from
    // another table may be a valid new commit here, e.g. a Delete of a whole fragment, which names no file)
    List<Corpus> own = corpus.stream().filter(c -> c.table() == table).toList();
    List<Corpus> pool = own.isEmpty() ? corpus : own;
    byte[] real = pool.get(random.nextInt(pool.size())).txn().toByteArray();
    switch (random.nextInt(9)) {
      case 0 -> {
        String id = pick("", "%24", "fuzz%24", "$", "$t0", "fuzz$", "fuzz$t0$extra", "nope$nope", "x".repeat(5000),
            "fuzz$t%C3%A5ble", "fuzz$..", "%00", "fuzz$t0%20", "fuzz%2Ft0", "fuzz$%2e%2e", "..%2F..%2Fetc",
            "fuzz$" + "%F0%9F%92%A9".repeat(50), "%ZZ");
        sendOdd("odd id", "POST", "/v1/table/" + id + "/commit", Map.of("Content-Type", "application/x-protobuf"),
            real, false);
      }
      case 1 -> {
        String type = pick("text/plain", "application/json", "application/x-protobuf; charset=binary",
            "APPLICATION/JSON", "multipart/form-data; boundary=x", "application/octet-stream", "", ";;;",
            "application/x-protobuf, application/json", "application/x-www-form-urlencoded",
            "multipart/mixed; boundary=--");
        Map<String, String> headers = new LinkedHashMap<>();
        if (!type.isEmpty()) {
          headers.put("Content-Type", type);
        }
        headers.put("Content-Length", Integer.toString(real.length));
        sendOdd("odd content type", "POST", commitPath(table.joinedId()), headers, real, false);
      }
      case 2 -> {
        byte[] huge = mutations.randomBytes((int) maxBodyBytes + 1 + random.nextInt(1024));
        sendOdd("oversized", "POST", commitPath(table.joinedId()), Map.of("Content-Type", "application/x-protobuf",
            "Content-Length", Integer.toString(huge.length)), huge, false);
      }
      case 3 -> {
        int cut = random.nextInt(real.length); // strictly shorter: the whole body is a real (repeated) commit
        sendOdd("truncated", "POST", commitPath(table.joinedId()), Map.of("Content-Type", "application/x-protobuf",
            "Content-Length", Integer.toString(real.length)), java.util.Arrays.copyOf(real, cut), true);
      }
      case 4 -> {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/x-protobuf");
        headers.put("Transfer-Encoding", "chunked");
        String chunks = pick("zz\r\nabc\r\n0\r\n\r\n", "5\r\nab", "-1\r\n\r\n", "FFFFFFFFFFFFFFFF\r\nx\r\n",
            Integer.toHexString(real.length) + "\r\n");
        byte[] body = chunks.getBytes(StandardCharsets.ISO_8859_1);
        sendOdd("bad chunks", "POST", commitPath(table.joinedId()), headers, body, true);
      }
      case 5 -> {
        Map<String, String> headers = new LinkedHashMap<>();
        headers.put("Content-Type", "application/x-protobuf");
        headers.put(pick("X-Fuzz", "Content-Encoding", "Accept", "Authorization", "x-api-key"),
            pick("gzip", "x".repeat(20_000), "Bearer \u0001", "\u00ff\u00fe", ""));
        headers.put("Content-Length", Integer.toString(real.length));
        sendOdd("odd header", "POST", commitPath(table.joinedId()), headers, real, false);
      }
      case 6 -> {
        String body = pick("{", "[]", "null", "{\"transaction\": 5}", "{\"transaction\": \"!!\"}",
            "{\"transaction\": null}", "{\"transaction\": \"" + Base64.getEncoder().encodeToString(real)
                + "\", \"affected_rows\": \"AAAA\"}",
            "{\"transaction\": \"" + Base64.getEncoder().encodeToString(real) + "\", \"rebase\": \"yes\"}",
            "{\"transaction\": \"" + Base64.getEncoder().encodeToString(real) + "\", \"affected_rows\": 7}",
            "\"" + "a".repeat(1000) + "\"", "{\"transaction\": {}}", "{\"transaction\": \"\"}");
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        sendOdd("odd json", "POST", commitPath(table.joinedId()), Map.of("Content-Type", "application/json",
            "Content-Length", Integer.toString(bytes.length)), bytes, false);
      }
      case 7 -> {
        String method = pick("GET", "PUT", "DELETE", "PATCH", "OPTIONS", "BREW");
        sendOdd("odd method", method, commitPath(table.joinedId()), Map.of("Content-Type", "application/x-protobuf",
            "Content-Length", Integer.toString(real.length)), real, false);
      }
      default -> {
        // a body longer than its Content-Length: the rest reaches the server as a garbled next request
        Map<String, String> headers = Map.of("Content-Type", "application/x-protobuf",
            "Content-Length", Integer.toString(Math.max(0, real.length / 2)));
        sendOdd("short content-length", "POST", commitPath(table.joinedId()), headers, real, true);
      }
    }
  }

  private void sendOdd(String kind, String method, String path, Map<String, String> headers, byte[] body,
      boolean cut) {
    int status;
    try {
      status = raw.send(method, path, headers, body, cut);
    } catch (IOException e) {
      status = -1; // the server closed the connection: fine for a request it refused to read
    }
    statuses.merge(kind + " " + (status < 0 ? "closed" : Integer.toString(status)), 1, Integer::sum);
    if (status >= 500 && status != 503) {
      violations.add("step " + step + ": " + kind + " " + method + " " + abbreviate(path) + " answered " + status);
    }
    // A 200 can only be a committed transaction answered again (every body here is one): the final check that
    // Lance lists exactly the acknowledged versions catches anything else. An odd id or body must not commit.
    if (status == 200 && !kind.equals("odd header") && !kind.equals("odd content type")) {
      violations.add("step " + step + ": " + kind + " " + method + " " + abbreviate(path) + " was committed");
    }
  }

  // ---- helpers -----------------------------------------------------------------------------------------------

  private Reply post(String path, String contentType, byte[] body) throws IOException, InterruptedException {
    HttpRequest request = HttpRequest.newBuilder(URI.create(baseUrl + path))
        .timeout(Duration.ofSeconds(60))
        .header("Content-Type", contentType)
        .POST(HttpRequest.BodyPublishers.ofByteArray(body))
        .build();
    HttpResponse<String> response = http.send(request, HttpResponse.BodyHandlers.ofString());
    Reply reply = new Reply(response.statusCode(), response.body());
    if (reply.status() >= 500 && reply.status() != 503) {
      violations.add("step " + step + ": POST " + abbreviate(path) + " answered " + reply);
    }
    return reply;
  }

  private byte[] jsonBody(byte[] transaction, boolean junk) throws IOException {
    ObjectNode body = JSON.createObjectNode().put("transaction", Base64.getEncoder().encodeToString(transaction));
    if (junk) {
      switch (random.nextInt(4)) {
        case 0 -> body.put("affected_rows", Base64.getEncoder().encodeToString(mutations.randomBytes(
            random.nextInt(40))));
        case 1 -> body.put("rebase", random.nextBoolean());
        case 2 -> body.put("unknown_field", random.nextInt());
        default -> body.putNull("affected_rows");
      }
    }
    return JSON.writeValueAsBytes(body);
  }

  private void count(String kind, Reply reply) {
    String code = "";
    if (reply.status() != 200) {
      try {
        JsonNode json = JSON.readTree(reply.body());
        code = json != null && json.has("code") ? "/" + json.get("code").asInt() : "";
      } catch (IOException e) {
        code = "/not-json";
      }
    }
    statuses.merge(kind + " " + reply.status() + code, 1, Integer::sum);
  }

  private static String commitPath(String joinedId) {
    return "/v1/table/" + URLEncoder.encode(joinedId, StandardCharsets.UTF_8).replace("%24", "$") + "/commit";
  }

  private static List<Long> scan(LanceTables lance, long version) {
    List<Long> ids = new ArrayList<>();
    try (Dataset ds = lance.open(version);
        LanceScanner scanner = ds.newScan(new ScanOptions.Builder().build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector id = root.getVector("id");
        for (int i = 0; i < root.getRowCount(); i++) {
          Object value = id == null ? null : id.getObject(i);
          ids.add(value == null ? null : ((Number) value).longValue());
          for (FieldVector column : root.getFieldVectors()) {
            column.getObject(i); // every column is decoded, not only the ids
          }
        }
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException(e);
    }
    ids.sort(Comparator.nullsFirst(Comparator.naturalOrder()));
    return ids;
  }

  private static String firstDifference(List<Long> actual, List<Long> expected) {
    for (int i = 0; i < Math.min(actual.size(), expected.size()); i++) {
      if (!java.util.Objects.equals(actual.get(i), expected.get(i))) {
        return "first difference at sorted position " + i + ": " + actual.get(i) + " vs " + expected.get(i);
      }
    }
    return "one is a prefix of the other";
  }

  private static String abbreviate(String s) {
    return s.length() <= 120 ? s : s.substring(0, 120) + "...";
  }

  @SafeVarargs
  private <T> T pick(T... options) {
    return options[random.nextInt(options.length)];
  }

  @Override
  public void close() {
    tables.forEach(t -> t.chaos().close());
    allocator.close();
  }
}
