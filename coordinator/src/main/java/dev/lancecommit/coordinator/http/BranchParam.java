package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.refs.RefNames;
import io.vertx.ext.web.RoutingContext;
import java.util.Optional;

/**
 * The spec's {@code branch}: a body field where the operation has a JSON body, the {@code branch} query parameter
 * where it has none (Arrow IPC and bodyless operations). Both are read; given twice, they must agree. Absent or
 * {@code main} is the main branch (null); any other value must be a name Lance accepts (400/13 otherwise).
 */
final class BranchParam {
  private BranchParam() {}

  static String of(RoutingContext ctx, JsonBody body) {
    Optional<String> query = QueryParams.string(ctx, "branch");
    Optional<String> field = body.string("branch");
    if (query.isPresent() && field.isPresent() && !query.get().equals(field.get())) {
      throw ApiException.invalidInput("The branch query parameter and the body's branch disagree",
          "Query names '" + query.get() + "', the body '" + field.get() + "'");
    }
    return RefNames.branchOrMain(query.or(() -> field).orElse(null));
  }

  /** For operations whose body is not JSON (CommitTable's protobuf): the query parameter only. */
  static String ofQuery(RoutingContext ctx) {
    return RefNames.branchOrMain(QueryParams.string(ctx, "branch").orElse(null));
  }
}
