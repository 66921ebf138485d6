package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.auth.AccessControl;
import dev.lancecommit.coordinator.auth.Permission;
import dev.lancecommit.coordinator.namespace.Catalog;
import dev.lancecommit.coordinator.namespace.TableEntry;
import dev.lancecommit.coordinator.namespace.TableNotFoundException;
import dev.lancecommit.coordinator.namespace.TableVersionNotFoundException;
import dev.lancecommit.coordinator.refs.Branches;
import dev.lancecommit.coordinator.storage.StorageLocation;
import dev.lancecommit.coordinator.table.TableOperations;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.coordinator.table.VersionFile;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.function.Function;

/**
 * ListTableVersions ({@code POST /v1/table/{id}/version/list}, also accepted as GET) and DescribeTableVersion, read
 * from the table's {@code _versions/} (one version, and the newest alone, without listing every version): the
 * manifest's path in its store ({@link StorePaths}: the key below the bucket on S3, the file path for local tables),
 * size and the time the store wrote it ({@code timestamp_millis}). Ascending by default; {@code descending=true} lists
 * newest first. Both need read.
 * With the spec's {@code branch} (query or body), the branch's own {@code tree/{branch}/_versions/} is listed; an
 * unknown branch is 404/22. Version records deleted with BatchDeleteTableVersions are no longer listed.
 */
final class TableVersionRoutes {
  private final Catalog catalog;
  private final Optional<Function<String, StorageLocation>> stores;
  private final Optional<Branches> branches;
  private final Blocking blocking;
  private final AccessControl access;

  TableVersionRoutes(Catalog catalog, Optional<Function<String, StorageLocation>> stores,
      Optional<Branches> branches, Blocking blocking, AccessControl access) {
    this.catalog = catalog;
    this.stores = stores;
    this.branches = branches;
    this.blocking = blocking;
    this.access = access;
  }

  void mount(Router router) {
    router.post("/v1/table/:id/version/list").handler(this::list);
    router.get("/v1/table/:id/version/list").handler(this::list);
    router.post("/v1/table/:id/version/describe").handler(this::describe);
  }

  private void list(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String branch = branchOf(ctx, body, "ListTableVersions");
    int limit = Paging.limit(ctx);
    Optional<Long> after = Paging.versionCursor(ctx);
    boolean descending = QueryParams.flag(ctx, body, "descending", false);
    access.require(Authentication.principal(ctx), Permission.READ, id);
    // The newest version alone is what stock clients ask before every managed-versioning commit: no listing.
    boolean latestOnly = descending && limit == 1 && after.isEmpty() && branch == null;
    blocking.run(() -> latestOnly ? latestVersionFile(id) : versionFiles(id, branch))
        .onSuccess(files -> {
          List<VersionFile> ordered = new ArrayList<>(files);
          Comparator<VersionFile> byVersion = Comparator.comparingLong(VersionFile::version);
          ordered.sort(descending ? byVersion.reversed() : byVersion);
          JsonArray versions = new JsonArray();
          VersionFile last = null;
          boolean more = false;
          for (VersionFile file : ordered) {
            if (after.isPresent()
                && (descending ? file.version() >= after.get() : file.version() <= after.get())) {
              continue;
            }
            if (versions.size() == limit) {
              more = true;
              break;
            }
            versions.add(json(file));
            last = file;
          }
          if (latestOnly && last != null && last.version() > 1) {
            more = true; // older versions may follow: the next page lists them
          }
          JsonObject out = new JsonObject().put("versions", versions);
          if (more) {
            out.put("page_token", Paging.token(Paging.Kind.VERSION, Long.toString(last.version())));
          }
          Responses.json(ctx, out);
        })
        .onFailure(ctx::fail);
  }

  private void describe(RoutingContext ctx) {
    JsonBody body = JsonBody.parseOrEmpty(ctx.body().buffer());
    List<String> id = RequestIds.tableId(ctx, body.stringList("id"));
    String branch = branchOf(ctx, body, "DescribeTableVersion");
    OptionalLong version = body.nonNegativeLong("version");
    access.require(Authentication.principal(ctx), Permission.READ, id);
    blocking.run(() -> {
      if (version.isPresent()) {
        return versionFile(id, branch, version.getAsLong())
            .orElseThrow(() -> new TableVersionNotFoundException(id, version.getAsLong()));
      }
      List<VersionFile> latest = branch == null ? latestVersionFile(id) : versionFiles(id, branch);
      if (latest.isEmpty()) {
        throw new ApiException(404, ErrorCode.TABLE_VERSION_NOT_FOUND, "Table has no version yet",
            "Table '" + String.join("$", id) + "' is declared but no version was committed");
      }
      return latest.get(latest.size() - 1);
    }).onSuccess(file -> Responses.json(ctx, new JsonObject().put("version", json(file))))
        .onFailure(ctx::fail);
  }

  private TableEntry load(List<String> id) {
    return catalog.loadTable(id).orElseThrow(() -> new TableNotFoundException(id));
  }

  private String branchOf(RoutingContext ctx, JsonBody body, String operation) {
    String branch = BranchParam.of(ctx, body);
    if (branch != null && (stores.isEmpty() || branches.isEmpty())) {
      throw ApiException.unsupportedOption(operation, "branch");
    }
    return branch;
  }

  /** The newest version of main, as a list of one (none when the table has no version yet). Blocking. */
  private List<VersionFile> latestVersionFile(List<String> id) {
    return catalog.latestVersionFile(load(id)).map(List::of).orElse(List.of());
  }

  /** One version of main (through the catalog) or of a branch, by its manifest's name: no listing. Blocking. */
  private Optional<VersionFile> versionFile(List<String> id, String branch, long version) {
    TableEntry entry = load(id);
    if (branch == null) {
      return catalog.versionFile(entry, version);
    }
    TableRef table = entry.toRef().onBranch(branch);
    branches.get().require(table);
    return TableOperations.of(stores.get().apply(table.branchRoot())).versionFile(version);
  }

  /** The versions of main (through the catalog) or of a branch (its own {@code _versions/}). Blocking. */
  private List<VersionFile> versionFiles(List<String> id, String branch) {
    TableEntry entry = load(id);
    if (branch == null) {
      return catalog.versionFiles(entry);
    }
    TableRef table = entry.toRef().onBranch(branch);
    branches.get().require(table);
    return TableOperations.of(stores.get().apply(table.branchRoot())).versionFiles();
  }

  private static JsonObject json(VersionFile file) {
    return new JsonObject()
        .put("version", file.version())
        .put("manifest_path", StorePaths.of(file.manifestUri()))
        .put("manifest_size", file.size())
        .put("timestamp_millis", file.lastModified().toEpochMilli());
  }
}
