package dev.lancecommit.events;

import java.time.Instant;
import java.util.List;
import java.util.Objects;

/**
 * One committed table version, as published to downstream consumers.
 *
 * <p>The event id is deterministic ({@code tableUuid + ":" + version}) so that a republished event (after a publish
 * failure and a resubmitted commit) is recognised as a duplicate by consumers. A version of a Lance branch has a
 * number of its own on that branch: its event names the branch, and versions are counted per {@link #streamKey()}
 * ({@code tableUuid} for the main branch, {@code tableUuid@branch} for another), so its id is
 * {@code tableUuid@branch:version}.
 *
 * @param tableId the identifier parts, namespace first, table name last; never empty
 * @param tableUuid the stable uuid the catalog gave the table
 * @param location the table root URI
 * @param version the committed version
 * @param readVersion the version the transaction was built from (0 when the table was created)
 * @param operation the Lance operation name, e.g. "Append", "Delete", "Overwrite"
 * @param transactionUuid the Lance transaction uuid; {@code null} only for an ungoverned version without a readable
 *     transaction
 * @param manifestPath the full URI of the manifest written for {@code version}
 * @param fragmentsAdded fragments the version added
 * @param fragmentsRemoved fragments the version removed
 * @param rowsAdded rows the version added
 * @param rowsRemoved rows the version removed (deleted or dropped with removed fragments)
 * @param committedAt when the version was committed
 * @param actor who committed, {@link #ANONYMOUS} when unknown
 * @param governed false for versions written bypassing the coordinator and discovered afterwards
 * @param trace the W3C trace context of the commit (carried as the CloudEvents distributed-tracing extension), may
 *     be {@code null}
 * @param branch the Lance branch the version was committed on; {@code null} for the main branch
 * @param batchId the id of the atomic multi-table batch (BatchCreateTableVersions, BatchCommitTables) the version
 *     belongs to; {@code null} for a version committed on its own
 * @param members the writers' transactions this version commits, in the order applied: one for a commit of its own,
 *     several for a group commit (then {@code transactionUuid} is the group's own uuid); empty when not known (a
 *     version written bypassing the coordinator without a readable transaction). Added in schema version 2.
 */
public record CommitEvent(
    List<String> tableId,
    String tableUuid,
    String location,
    long version,
    long readVersion,
    String operation,
    String transactionUuid,
    String manifestPath,
    int fragmentsAdded,
    int fragmentsRemoved,
    long rowsAdded,
    long rowsRemoved,
    Instant committedAt,
    String actor,
    boolean governed,
    TraceContext trace,
    String branch,
    String batchId,
    List<Member> members) {

  /** The actor recorded when a commit carries no identity. */
  public static final String ANONYMOUS = "anonymous";

  /** Delimiter used to join table id parts into one string (the Lance namespace spec's default). */
  public static final String ID_DELIMITER = "$";

  /**
   * One writer's transaction in the version.
   *
   * @param transactionUuid the uuid the writer gave it
   * @param readVersion the read version the writer built it on
   * @param actor who sent it, {@link #ANONYMOUS} when unknown
   * @param traceId the trace id (32 hex digits) of its commit request, may be {@code null}
   * @param newFragmentIds the ids the version gave the fragments this transaction added, in the transaction's order
   *     (what its CommitTable answer says); empty when it added none or they are not known (an event rebuilt from
   *     storage for a group)
   */
  public record Member(String transactionUuid, long readVersion, String actor, String traceId,
      List<Long> newFragmentIds) {
    public Member {
      requireText(transactionUuid, "member transactionUuid");
      requireNonNegative(readVersion, "member readVersion");
      actor = actor == null || actor.isBlank() ? ANONYMOUS : actor;
      if (traceId != null && traceId.isBlank()) {
        throw new IllegalArgumentException("member traceId must be null or non-blank");
      }
      newFragmentIds = newFragmentIds == null ? List.of() : List.copyOf(newFragmentIds);
      for (long id : newFragmentIds) {
        if (id < 0) {
          throw new IllegalArgumentException("member newFragmentIds must be non-negative: " + newFragmentIds);
        }
      }
    }

    /** A member whose new fragment ids are not known. */
    public Member(String transactionUuid, long readVersion, String actor, String traceId) {
      this(transactionUuid, readVersion, actor, traceId, List.of());
    }
  }

  public CommitEvent {
    Objects.requireNonNull(tableId, "tableId");
    if (tableId.isEmpty()) {
      throw new IllegalArgumentException("tableId must have at least one part");
    }
    for (String part : tableId) {
      if (part == null || part.isEmpty()) {
        throw new IllegalArgumentException("tableId parts must be non-empty: " + tableId);
      }
    }
    tableId = List.copyOf(tableId);
    requireText(tableUuid, "tableUuid");
    requireText(location, "location");
    requireNonNegative(version, "version");
    requireNonNegative(readVersion, "readVersion");
    requireText(operation, "operation");
    if (transactionUuid != null && transactionUuid.isBlank()) {
      throw new IllegalArgumentException("transactionUuid must be null or non-blank");
    }
    requireText(manifestPath, "manifestPath");
    requireNonNegative(fragmentsAdded, "fragmentsAdded");
    requireNonNegative(fragmentsRemoved, "fragmentsRemoved");
    requireNonNegative(rowsAdded, "rowsAdded");
    requireNonNegative(rowsRemoved, "rowsRemoved");
    Objects.requireNonNull(committedAt, "committedAt");
    requireText(actor, "actor");
    if (branch != null && (branch.isBlank() || branch.equals(MAIN_BRANCH) || branch.indexOf(':') >= 0)) {
      throw new IllegalArgumentException("branch must be null (main) or a branch name, got '" + branch + "'");
    }
    if (batchId != null && batchId.isBlank()) {
      throw new IllegalArgumentException("batchId must be null or non-blank");
    }
    members = members == null ? List.of() : List.copyOf(members);
  }

  /** {@link CommitEvent} of schema version 1's fields: the main branch, no batch, no member list. */
  public CommitEvent(List<String> tableId, String tableUuid, String location, long version, long readVersion,
      String operation, String transactionUuid, String manifestPath, int fragmentsAdded, int fragmentsRemoved,
      long rowsAdded, long rowsRemoved, Instant committedAt, String actor, boolean governed, TraceContext trace) {
    this(tableId, tableUuid, location, version, readVersion, operation, transactionUuid, manifestPath, fragmentsAdded,
        fragmentsRemoved, rowsAdded, rowsRemoved, committedAt, actor, governed, trace, null, null, List.of());
  }

  /** How many writers' transactions the version commits: the members, or 1 when they are not known. */
  public int groupSize() {
    return Math.max(1, members.size());
  }

  /** Lance's name of the main branch, which events leave out ({@code branch} null). */
  public static final String MAIN_BRANCH = "main";

  /** The trace id of the commit's trace (32 hex digits), or null when the event carries no trace context. */
  public String traceId() {
    return trace == null ? null : trace.traceId();
  }

  /** The deterministic event id, {@code streamKey + ":" + version}. */
  public String id() {
    return streamKey() + ":" + version;
  }

  /**
   * What versions are numbered within: the table uuid for the main branch, {@code tableUuid@branch} for a branch.
   * Consumers order and deduplicate per stream.
   */
  public String streamKey() {
    return branch == null ? tableUuid : tableUuid + "@" + branch;
  }

  /** All id parts but the last; empty for a table at the root namespace. */
  public List<String> namespace() {
    return tableId.subList(0, tableId.size() - 1);
  }

  /** The last id part. */
  public String tableName() {
    return tableId.get(tableId.size() - 1);
  }

  /** The table id joined with {@code $}: the Kafka record key and the CloudEvent subject. */
  public String tableKey() {
    return String.join(ID_DELIMITER, tableId);
  }

  public Builder toBuilder() {
    return new Builder(this);
  }

  public static Builder builder() {
    return new Builder();
  }

  private static void requireText(String value, String name) {
    if (value == null || value.isBlank()) {
      throw new IllegalArgumentException(name + " must be non-blank");
    }
  }

  private static void requireNonNegative(long value, String name) {
    if (value < 0) {
      throw new IllegalArgumentException(name + " must be >= 0, got " + value);
    }
  }

  /** Fluent builder; {@code actor} defaults to {@link #ANONYMOUS}, {@code governed} to true. */
  public static final class Builder {
    private List<String> tableId;
    private String tableUuid;
    private String location;
    private long version = -1;
    private long readVersion = -1;
    private String operation;
    private String transactionUuid;
    private String manifestPath;
    private int fragmentsAdded;
    private int fragmentsRemoved;
    private long rowsAdded;
    private long rowsRemoved;
    private Instant committedAt;
    private String actor = ANONYMOUS;
    private boolean governed = true;
    private TraceContext trace;
    private String branch;
    private String batchId;
    private List<Member> members = List.of();

    private Builder() {}

    private Builder(CommitEvent e) {
      tableId = e.tableId;
      tableUuid = e.tableUuid;
      location = e.location;
      version = e.version;
      readVersion = e.readVersion;
      operation = e.operation;
      transactionUuid = e.transactionUuid;
      manifestPath = e.manifestPath;
      fragmentsAdded = e.fragmentsAdded;
      fragmentsRemoved = e.fragmentsRemoved;
      rowsAdded = e.rowsAdded;
      rowsRemoved = e.rowsRemoved;
      committedAt = e.committedAt;
      actor = e.actor;
      governed = e.governed;
      trace = e.trace;
      branch = e.branch;
      batchId = e.batchId;
      members = e.members;
    }

    public Builder tableId(List<String> value) {
      tableId = value;
      return this;
    }

    public Builder tableUuid(String value) {
      tableUuid = value;
      return this;
    }

    public Builder location(String value) {
      location = value;
      return this;
    }

    public Builder version(long value) {
      version = value;
      return this;
    }

    public Builder readVersion(long value) {
      readVersion = value;
      return this;
    }

    public Builder operation(String value) {
      operation = value;
      return this;
    }

    public Builder transactionUuid(String value) {
      transactionUuid = value;
      return this;
    }

    public Builder manifestPath(String value) {
      manifestPath = value;
      return this;
    }

    public Builder fragmentsAdded(int value) {
      fragmentsAdded = value;
      return this;
    }

    public Builder fragmentsRemoved(int value) {
      fragmentsRemoved = value;
      return this;
    }

    public Builder rowsAdded(long value) {
      rowsAdded = value;
      return this;
    }

    public Builder rowsRemoved(long value) {
      rowsRemoved = value;
      return this;
    }

    public Builder committedAt(Instant value) {
      committedAt = value;
      return this;
    }

    /** A null or blank actor is recorded as {@link CommitEvent#ANONYMOUS}. */
    public Builder actor(String value) {
      actor = value == null || value.isBlank() ? ANONYMOUS : value;
      return this;
    }

    public Builder governed(boolean value) {
      governed = value;
      return this;
    }

    public Builder members(List<Member> value) {
      members = value;
      return this;
    }

    /** The trace context of the commit; null for none. */
    public Builder trace(TraceContext value) {
      trace = value;
      return this;
    }

    /** The branch of the version; null (the default) for the main branch. */
    public Builder branch(String value) {
      branch = value;
      return this;
    }

    /** The atomic batch the version belongs to; null (the default) for a version committed on its own. */
    public Builder batchId(String value) {
      batchId = value;
      return this;
    }

    /** Builds the event; throws {@link IllegalArgumentException} or {@link NullPointerException} naming a bad field. */
    public CommitEvent build() {
      return new CommitEvent(
          tableId,
          tableUuid,
          location,
          version,
          readVersion,
          operation,
          transactionUuid,
          manifestPath,
          fragmentsAdded,
          fragmentsRemoved,
          rowsAdded,
          rowsRemoved,
          committedAt,
          actor,
          governed,
          trace,
          branch,
          batchId,
          members);
    }
  }
}
