package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.auth.Principal;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.commit.CommitService;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.storage.StoreException;
import dev.lancecommit.coordinator.table.TableStorage;
import dev.lancecommit.format.ManifestFile;
import dev.lancecommit.format.ManifestNaming;
import dev.lancecommit.format.TransactionFiles;
import dev.lancecommit.format.pb.Transaction;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.concurrent.CompletableFuture;
import java.util.function.Function;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * CreateTableVersion ({@code POST /v1/table/{id}/version/create}), the commit of a client using namespace-managed
 * versioning. Stock Lance writes the manifest of the version it wants under a staging name,
 * {@code _versions/{final name}-{uuid}}, and asks the namespace to make it the version.
 *
 * <p>The coordinator does not copy those bytes: it takes the staged manifest's transaction (inline, else its
 * {@code .txn}), refuses with 409/14 unless the staged version is the table's latest + 1, and commits the
 * transaction through {@link CommitService}, like CommitTable: the conflict rules, lane ordering, idempotent resubmits,
 * ambiguous-write handling and the commit event are the same. The final manifest is the one the lane builds from the
 * transaction on the latest version, which for a transaction built on that version has the staged manifest's
 * content (fragments, schema, ids), with the coordinator's writer version, timestamp and the actor recorded in its
 * transaction. The staged file is removed once the version exists.
 *
 * <p>A transaction built on the version just before the staged one is committed with {@code rebase=false}, so a
 * commit that slips in between the check and the lane makes this a retryable conflict instead of landing the
 * transaction at another version. A transaction Lance already rebased on its side (its read_version is older) is
 * committed with rebase allowed; should it land at another version than staged, the answer names the version it
 * did land at (never a conflict for a committed transaction). A retried request whose transaction already made the
 * version answers that version again. Needs the commit grant on the table.
 */
final class CreateTableVersionRoute {
  private static final Logger LOG = LoggerFactory.getLogger(CreateTableVersionRoute.class);
  private static final String OPERATION = "CreateTableVersion";

  private final Catalog catalog;
  private final CommitService commitService;
  private final Optional<Function<String, StorageLocation>> tableStorage;
  private final Blocking blocking;
  private final AccessControl access;

  CreateTableVersionRoute(Catalog catalog, CommitService commitService,
      Optional<Function<String, StorageLocation>> tableStorage, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.commitService = commitService;
    this.tableStorage = tableStorage;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/version/create").handler(this::create);
  }

  private void create(RoutingContext ctx) {
    if (tableStorage.isEmpty()) {
      throw ApiException.unsupportedOperation(OPERATION);
    }
    Request request = parse(ctx);
    Principal caller = Authentication.principal(ctx);
    access.require(caller, Permission.COMMIT, request.id);
    // The commit service is called from the worker too: resolving a table's store may build a client.
    blocking.run(() -> {
      Staged staged = stage(request);
      CloneSourceAccess.require(access, caller, catalog, staged.transaction.toByteArray());
      CompletableFuture<Long> committed = commitService.commit(staged.entry.toRef(),
              new CommitRequest(staged.transaction.toByteArray(), Optional.empty(),
                  staged.transaction.getReadVersion() != request.version - 1, caller.name()))
          .thenApply(CommitResult::version);
      return new Submitted(staged, committed);
    }).compose(submitted -> Future.fromCompletionStage(submitted.version, ctx.vertx().getOrCreateContext())
            .compose(version -> blocking.run(() -> finish(submitted.staged, version))))
        .onSuccess(body -> Responses.json(ctx, body))
        .onFailure(ctx::fail);
  }

  private static Request parse(RoutingContext ctx) {
    JsonBody body = JsonBody.parse(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    if (body.string("branch").isPresent()) {
      throw ApiException.unsupportedOption(OPERATION, "branch");
    }
    if (!body.stringMap("metadata").isEmpty()) {
      throw ApiException.unsupportedOption(OPERATION, "metadata");
    }
    OptionalLong version = body.nonNegativeLong("version");
    if (version.isEmpty() || version.getAsLong() < 1) {
      throw ApiException.invalidInput("Field 'version' is required and must be at least 1");
    }
    String manifestPath = body.string("manifest_path").filter(p -> !p.isBlank())
        .orElseThrow(() -> ApiException.invalidInput("Field 'manifest_path' is required"));
    OptionalLong size = body.nonNegativeLong("manifest_size");
    Optional<ManifestNaming.Scheme> scheme = body.string("naming_scheme").map(CreateTableVersionRoute::scheme);
    return new Request(id, version.getAsLong(), manifestPath, size, scheme);
  }

  private static ManifestNaming.Scheme scheme(String value) {
    return switch (value.toUpperCase(Locale.ROOT)) {
      case "V1" -> ManifestNaming.Scheme.V1;
      case "V2" -> ManifestNaming.Scheme.V2;
      default -> throw ApiException.invalidInput("Field 'naming_scheme' must be V1 or V2, got '" + value + "'");
    };
  }

  /** Reads and checks the staged manifest; blocking. */
  private Staged stage(Request request) {
    TableEntry entry = catalog.loadTable(request.id).orElseThrow(() -> new TableNotFoundException(request.id));
    StorePaths.StagedName staging = StorePaths.stagedManifestName(entry.location(), request.manifestPath,
        request.version);
    String name = staging.name();
    if (request.scheme.isPresent() && staging.scheme() != request.scheme.get()) {
      throw ApiException.invalidInput("Field 'naming_scheme' does not match the staged manifest's name",
          "'" + name + "' is not named by scheme " + request.scheme.get());
    }
    TableStorage table = new TableStorage(tableStorage.orElseThrow().apply(entry.location()));
    String stagedKey = table.location().key(ManifestNaming.VERSIONS_DIR + "/" + name);
    byte[] bytes = table.location().store().get(stagedKey).orElseThrow(() -> ApiException.invalidInput(
        "No staged manifest at '" + request.manifestPath + "'",
        "Write the manifest under its staging name before asking for version " + request.version));
    if (request.size.isPresent() && request.size.getAsLong() != bytes.length) {
      throw ApiException.invalidInput("Staged manifest size does not match 'manifest_size'",
          "'" + request.manifestPath + "' has " + bytes.length + " bytes, the request says "
              + request.size.getAsLong());
    }
    ManifestFile staged;
    try {
      staged = ManifestFile.decode(bytes);
    } catch (RuntimeException e) {
      throw ApiException.invalidInput("Staged manifest is not a Lance manifest", e.getMessage());
    }
    if (staged.version() != request.version) {
      throw ApiException.invalidInput("Staged manifest does not match the version", "'" + request.manifestPath
          + "' holds the manifest of version " + staged.version() + ", the request creates version "
          + request.version);
    }
    Transaction txn = transactionOf(staged, table, request.manifestPath);

    TableStorage.VersionListing listing = table.listVersions();
    long latest = listing.latest().orElse(0L);
    if (request.version <= latest) {
      // The same request again (its answer lost): the version is already this transaction's, and the lane answers
      // it as the idempotent resubmit it is (publishing its event again).
      ManifestFile landed = table.readManifest(request.version, listing.scheme().orElseThrow()).orElse(null);
      if (landed != null && table.transactionOf(landed).getUuid().equals(txn.getUuid())) {
        return new Staged(entry, table, stagedKey, txn, request.version);
      }
    }
    // A shallow Clone creates the table at the source's version number, not at 1.
    long next = latest == 0 && txn.hasClone() ? txn.getClone().getRefVersion() : latest + 1;
    if (request.version != next) {
      throw new ApiException(409, ErrorCode.CONCURRENT_MODIFICATION,
          "Version " + request.version + " cannot be created: the table's latest version is " + latest,
          request.version <= latest
              ? "Version " + request.version + " already exists; reload the table, rebuild the transaction on version "
                  + latest + " and stage version " + (latest + 1)
              : "Versions must be created in order; the next version of this table is " + next);
    }
    return new Staged(entry, table, stagedKey, txn, request.version);
  }

  /** The staged manifest's inline transaction, else the {@code .txn} file it names. */
  private static Transaction transactionOf(ManifestFile staged, TableStorage table, String manifestPath) {
    if (staged.transaction().isPresent()) {
      return staged.transaction().get();
    }
    String file = staged.manifest().getTransactionFile();
    if (file.isEmpty()) {
      throw ApiException.invalidInput("Staged manifest carries no transaction", "'" + manifestPath
          + "' has neither an inline transaction nor a transaction_file; the coordinator commits transactions");
    }
    if (TransactionFiles.parse(file).isEmpty()) {
      throw ApiException.invalidInput("Staged manifest names an invalid transaction file", "'" + file
          + "' is not a {read_version}-{uuid}.txn name");
    }
    StorageLocation location = table.location();
    byte[] bytes = location.store().get(location.key(TransactionFiles.TRANSACTIONS_DIR + "/" + file))
        .orElseThrow(() -> ApiException.invalidInput("The staged manifest's transaction file is missing",
            "'" + manifestPath + "' names " + TransactionFiles.TRANSACTIONS_DIR + "/" + file + ", which does not exist"));
    try {
      return TransactionFiles.decode(bytes);
    } catch (RuntimeException e) {
      throw ApiException.invalidInput("The staged manifest's transaction file is not a Lance transaction",
          e.getMessage());
    }
  }

  /** Removes the staged file and describes the version; blocking. */
  private JsonObject finish(Staged staged, long version) {
    TableStorage table = staged.table;
    ManifestNaming.Scheme scheme = table.listVersions().scheme().orElseThrow(() ->
        new StoreException("Version " + version + " was committed but _versions/ is empty"));
    String key = table.location().key(ManifestNaming.path(scheme, version));
    ObjectInfo manifest = table.location().store().head(key).orElseThrow(() ->
        new StoreException("Version " + version + " was committed but its manifest " + key + " is missing"));
    try {
      table.location().store().delete(staged.stagedKey);
    } catch (StoreException e) {
      LOG.warn("Version {} of {} committed; its staged manifest {} was not removed: {}", version,
          staged.entry.toRef().joinedId(), staged.stagedKey, e.toString());
    }
    if (version != staged.requestedVersion) {
      LOG.warn("Transaction {} staged as version {} of {} landed as version {}", staged.transaction.getUuid(),
          staged.requestedVersion, staged.entry.toRef().joinedId(), version);
    }
    return new JsonObject()
        .put("transaction_id", staged.transaction.getUuid())
        .put("version", new JsonObject()
            .put("version", version)
            .put("manifest_path", StorePaths.of(table.location().uri(ManifestNaming.path(scheme, version))))
            .put("manifest_size", manifest.size())
            .put("timestamp_millis", manifest.lastModified().toEpochMilli()));
  }

  private record Request(List<String> id, long version, String manifestPath, OptionalLong size,
      Optional<ManifestNaming.Scheme> scheme) {}

  /** A checked staged manifest. */
  private record Staged(TableEntry entry, TableStorage table, String stagedKey, Transaction transaction,
      long requestedVersion) {}

  private record Submitted(Staged staged, CompletableFuture<Long> version) {}
}
