package dev.lancecommit.client;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.client.lance.LanceDeletes;
import dev.lancecommit.client.lance.LanceProtos;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.Transaction;
import java.net.URI;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.OptionalLong;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.ReadOptions;
import org.lance.compaction.RewriteResult;
import org.lance.index.Index;

/**
 * Commits Lance transactions through the coordinator's CommitTable, with one retry policy ({@link RetryPolicy}).
 * Writers write data files with stock Lance at the location {@link #declareTable} or {@link #describeTable} returns
 * (with its vended storage options), then commit them here:
 *
 * <pre>{@code
 * try (CommitClient client = CommitClient.builder().uri("http://127.0.0.1:9101").build()) {
 *   TableId id = TableId.of("sales", "orders");
 *   TableInfo table = client.declareTable(id);
 *   List<FragmentMetadata> fragments = Fragment.write().datasetUri(table.location())
 *       .storageOptions(table.storageOptions()).allocator(allocator).data(root).execute();
 *   long version = client.createTable(id, fragments, root.getSchema()).version();
 * }
 * }</pre>
 *
 * <p>Thread-safe: one client serves any number of threads. It owns an Arrow allocator for the Lance reads that
 * {@link #delete} makes; close it when done.
 */
public final class CommitClient implements AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();

  private final CoordinatorHttp http;
  private final RetryPolicy policy;
  private final Map<String, String> storageOptions;
  private final BufferAllocator allocator = new RootAllocator();

  private CommitClient(Builder builder) {
    this.policy = builder.retryPolicy;
    this.storageOptions = Map.copyOf(builder.storageOptions);
    this.http = new CoordinatorHttp(builder.uri, builder.apiKey, builder.bearerToken, builder.retryPolicy,
        builder.routeToOwner);
  }

  public static Builder builder() {
    return new Builder();
  }

  public RetryPolicy retryPolicy() {
    return policy;
  }

  /**
   * DeclareTable: reserves {@code id} (its namespace must exist) and returns where to write its data files.
   *
   * @throws TableAlreadyExistsException when the id is taken
   */
  public TableInfo declareTable(TableId id) {
    JsonNode body = http.post("DeclareTable " + id, tablePath(id, "declare"), JSON.createObjectNode(), false);
    return tableInfo(id, body);
  }

  /** DescribeTable: the table's location, vended storage options and latest version. */
  public TableInfo describeTable(TableId id) {
    JsonNode body = http.post("DescribeTable " + id, tablePath(id, "describe"), JSON.createObjectNode(), true);
    return tableInfo(id, body);
  }

  /**
   * CreateNamespace {@code parts} (e.g. {@code "sales"}), with no properties.
   *
   * @throws NamespaceAlreadyExistsException when it exists
   */
  public void createNamespace(String... parts) {
    TableId namespace = new TableId(List.of(parts));
    http.post("CreateNamespace " + namespace, "/v1/namespace/" + CoordinatorHttp.encode(namespace) + "/create",
        JSON.createObjectNode(), false);
  }

  /**
   * Commits the first version of a declared table: an Overwrite at read version 0 with {@code schema} (recorded
   * exactly as stock Lance records it for that Arrow schema, the schema's own metadata included) and the fragments
   * written for it.
   */
  public CommitResult createTable(TableId id, List<FragmentMetadata> fragments, Schema schema) {
    return commit(id, CommitRequest.of(withSchemaMetadata(TransactionFactory.create(LanceProtos.schema(schema),
        LanceProtos.fragments(fragments)), schema)));
  }

  /**
   * Appends fragments on the latest version. A retryable conflict (409/14) is resubmitted on the conflicting version
   * by the client itself, at most {@link RetryPolicy#maxRebuilds()} times: appends commute.
   */
  public CommitResult append(TableId id, List<FragmentMetadata> fragments) {
    return commit(id, CommitRequest.of(TransactionFactory.append(latestVersion(id), LanceProtos.fragments(fragments))));
  }

  /** Replaces the table's schema and data with {@code fragments}, on its latest version. */
  public CommitResult overwrite(TableId id, List<FragmentMetadata> fragments, Schema schema) {
    return commit(id, CommitRequest.of(withSchemaMetadata(TransactionFactory.overwrite(latestVersion(id),
        LanceProtos.schema(schema), LanceProtos.fragments(fragments)), schema)));
  }

  /**
   * Deletes the rows matching the SQL {@code predicate}: Lance computes the deletion vectors on the latest version
   * without committing (writing new deletion files), and the Delete goes to the coordinator with the row addresses it
   * touched, so a concurrent delete of other rows of the same fragments is merged server-side. When the coordinator
   * still answers 409/14 (the same rows were deleted, or the fragments rewritten), the delete is computed again on
   * the conflicting version, as Lance's own commit loop does. A predicate matching nothing still commits a version,
   * as Lance's own delete does.
   */
  public CommitResult delete(TableId id, String predicate) {
    Objects.requireNonNull(predicate, "predicate");
    TableInfo table = describeTable(id);
    long latest = table.version().orElseThrow(() -> new InvalidInputException(
        "Delete from " + id + " refused: the table has no version yet", 0, -1, ""));
    return commit(id, latest, readVersion -> {
      try (Dataset dataset = open(table, readVersion)) {
        return LanceDeletes.delete(dataset, predicate);
      }
    });
  }

  /**
   * Commits compaction done with Lance ({@code Compaction.planCompaction}, then {@code CompactionTask.execute} for
   * each task): one Rewrite group per result, on the version the plan was made on. A retryable conflict surfaces as
   * {@link RetryableConflictException}: plan again on the new version.
   */
  public CommitResult compact(TableId id, RewriteResult... results) {
    if (results.length == 0) {
      throw new IllegalArgumentException("compact needs at least one RewriteResult");
    }
    long readVersion = results[0].getReadVersion();
    List<Transaction.RewriteGroup> groups = new ArrayList<>();
    for (RewriteResult result : results) {
      if (result.getReadVersion() != readVersion) {
        throw new IllegalArgumentException("RewriteResults of different versions (" + readVersion + " and "
            + result.getReadVersion() + ") cannot be committed together");
      }
      groups.add(LanceProtos.rewriteGroup(result));
    }
    return commit(id, CommitRequest.of(TransactionFactory.rewrite(readVersion, groups)));
  }

  /**
   * Commits index segments Lance built without committing (for example {@code Dataset.createIndex} with
   * {@code IndexOptions.withFragmentIds(..).withIndexUUID(..)}, then {@code mergeIndexMetadata}), replacing
   * {@code removed} (matched by uuid). The read version is the newest version the new segments were built on.
   */
  public CommitResult createIndex(TableId id, List<Index> added, List<Index> removed) {
    if (added.isEmpty()) {
      throw new IllegalArgumentException("createIndex needs at least one new index segment");
    }
    long readVersion = added.stream().mapToLong(Index::datasetVersion).max().getAsLong();
    return commit(id, CommitRequest.of(TransactionFactory.createIndex(readVersion,
        added.stream().map(LanceProtos::index).toList(), removed.stream().map(LanceProtos::index).toList())));
  }

  /**
   * Commits a transaction built elsewhere (the bytes Lance writes to {@code _transactions/*.txn}). An Append is
   * rebuilt on a conflicting version like {@link #append}; any other retryable conflict is thrown.
   *
   * @throws IllegalArgumentException when the bytes are not a Lance Transaction
   */
  public CommitResult commit(TableId id, byte[] transaction) {
    try {
      return commit(id, CommitRequest.of(Transaction.parseFrom(transaction)));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalArgumentException("not a Lance Transaction protobuf: " + e.getMessage(), e);
    }
  }

  /** Commits {@code request}; an Append is rebuilt on a conflicting version like {@link #append}. */
  public CommitResult commit(TableId id, CommitRequest request) {
    Transaction first = request.transaction();
    TransactionRebuilder appendRebuilder = first.hasAppend()
        ? readVersion -> new CommitRequest(first.toBuilder().setReadVersion(readVersion).build(),
            request.affectedRows())
        : null;
    return commitLoop(id, request, appendRebuilder);
  }

  /**
   * Commits what {@code rebuilder} builds on {@code readVersion}, and on each retryable conflict (409/14) calls it
   * again with the conflicting version, at most {@link RetryPolicy#maxRebuilds()} times.
   */
  public CommitResult commit(TableId id, long readVersion, TransactionRebuilder rebuilder) {
    return commitLoop(id, rebuilder.build(readVersion), rebuilder);
  }

  private CommitResult commitLoop(TableId id, CommitRequest first, TransactionRebuilder rebuilder) {
    CommitRequest request = first;
    for (int rebuilds = 0; ; rebuilds++) {
      try {
        return http.commit(id, request);
      } catch (RetryableConflictException e) {
        OptionalLong conflicting = e.conflictingVersion();
        if (rebuilder == null || rebuilds >= policy.maxRebuilds() || conflicting.isEmpty()) {
          throw e;
        }
        request = rebuilder.build(conflicting.getAsLong());
      }
    }
  }

  /**
   * Lance's transaction file leaves the Arrow schema's metadata out of an Overwrite while its manifest keeps it; the
   * coordinator builds the manifest from the transaction, so the metadata goes in {@code schema_metadata}.
   */
  private static Transaction withSchemaMetadata(Transaction overwrite, Schema schema) {
    return overwrite.toBuilder()
        .setOverwrite(overwrite.getOverwrite().toBuilder().putAllSchemaMetadata(LanceProtos.schemaMetadata(schema)))
        .build();
  }

  /** The latest version, read without asking for credentials (a listing of the table's versions). */
  private long latestVersion(TableId id) {
    ObjectNode body = JSON.createObjectNode().put("vend_credentials", false);
    JsonNode answer = http.post("DescribeTable " + id, tablePath(id, "describe"), body, true);
    if (!answer.hasNonNull("version")) {
      throw new InvalidInputException("Table " + id + " has no version yet; create it with createTable", 0, -1, "");
    }
    return answer.get("version").asLong();
  }

  private Dataset open(TableInfo table, long version) {
    Map<String, String> options = new HashMap<>(storageOptions);
    options.putAll(table.storageOptions());
    return Dataset.open(allocator, table.location(),
        new ReadOptions.Builder().setStorageOptions(options).setVersion(version).build());
  }

  private static String tablePath(TableId id, String action) {
    return "/v1/table/" + CoordinatorHttp.encode(id) + "/" + action;
  }

  private TableInfo tableInfo(TableId id, JsonNode body) {
    String location = body.path("location").asText(null);
    if (location == null || location.isEmpty()) {
      throw new RequestFailedException("Table " + id + ": the coordinator's answer names no location: " + body, 200,
          -1, body.toString());
    }
    Map<String, String> options = new HashMap<>(storageOptions);
    JsonNode vended = body.path("storage_options");
    for (Iterator<Map.Entry<String, JsonNode>> it = vended.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> e = it.next();
      options.put(e.getKey(), e.getValue().asText());
    }
    OptionalLong version = body.hasNonNull("version") ? OptionalLong.of(body.get("version").asLong())
        : OptionalLong.empty();
    return new TableInfo(id, location, options, version);
  }

  @Override
  public void close() {
    try {
      http.close();
    } finally {
      allocator.close();
    }
  }

  /** Configures a {@link CommitClient}. Only {@link #uri} is required. */
  public static final class Builder {
    private URI uri;
    private Optional<String> apiKey = Optional.empty();
    private Optional<String> bearerToken = Optional.empty();
    private RetryPolicy retryPolicy = RetryPolicy.DEFAULT;
    private Map<String, String> storageOptions = Map.of();
    private boolean routeToOwner = true;

    private Builder() {}

    /** The coordinator's REST URL, e.g. {@code http://127.0.0.1:9101}. */
    public Builder uri(String uri) {
      return uri(URI.create(uri));
    }

    public Builder uri(URI uri) {
      String scheme = uri.getScheme();
      if (scheme == null || !(scheme.equals("http") || scheme.equals("https")) || uri.getHost() == null) {
        throw new IllegalArgumentException("the coordinator URI must be http(s)://host[:port], got " + uri);
      }
      this.uri = uri;
      return this;
    }

    /** Sent as {@code x-api-key} (the coordinator's {@code auth.principals.<name>.api-key}). */
    public Builder apiKey(String apiKey) {
      this.apiKey = Optional.of(requireText(apiKey, "apiKey"));
      return this;
    }

    /** Sent as {@code Authorization: Bearer} (the coordinator's {@code auth.principals.<name>.token}). */
    public Builder bearerToken(String token) {
      this.bearerToken = Optional.of(requireText(token, "bearerToken"));
      return this;
    }

    public Builder retryPolicy(RetryPolicy policy) {
      this.retryPolicy = Objects.requireNonNull(policy, "policy");
      return this;
    }

    /**
     * Storage options used under the vended ones (which win), for stores the coordinator vends nothing for: e.g.
     * the S3 endpoint and keys of a warehouse with {@code credentials.mode=none}.
     */
    public Builder storageOptions(Map<String, String> options) {
      this.storageOptions = Map.copyOf(options);
      return this;
    }

    /**
     * Whether commits go straight to the coordinator instance that owns their table once an answer named it (on by
     * default). In a cluster, the configured URL (e.g. a load balancer) reaches any instance, which forwards a commit
     * to the table's owner and names it in its answer; going there directly saves that hop. An owner that cannot be
     * reached is left for a minute and the commit goes to the configured URL. Turn it off where the instances'
     * advertised URLs are not reachable from the client (the fallback then costs one failed connection a minute).
     */
    public Builder routeToOwner(boolean routeToOwner) {
      this.routeToOwner = routeToOwner;
      return this;
    }

    public CommitClient build() {
      if (uri == null) {
        throw new IllegalStateException("CommitClient.builder() needs uri(...)");
      }
      return new CommitClient(this);
    }

    private static String requireText(String value, String what) {
      if (value == null || value.isBlank()) {
        throw new IllegalArgumentException(what + " must not be blank");
      }
      return value;
    }
  }
}
