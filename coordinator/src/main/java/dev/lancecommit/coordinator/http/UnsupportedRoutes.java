package dev.lancecommit.coordinator.http;

import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import java.util.List;

/** Every other operation of the Lance namespace REST spec answers 501 with code 0, naming the operation. */
final class UnsupportedRoutes {
  private record Operation(HttpMethod method, String path, String operationId) {}

  private static final List<Operation> OPERATIONS = List.of(
      new Operation(HttpMethod.POST, "/v1/table/:id/insert", "InsertIntoTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/merge_insert", "MergeInsertIntoTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/update", "UpdateTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/delete", "DeleteFromTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/query", "QueryTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/count_rows", "CountTableRows"),
      new Operation(HttpMethod.POST, "/v1/table/:id/create", "CreateTable"),
      new Operation(HttpMethod.POST, "/v1/table/:id/explain_plan", "ExplainTableQueryPlan"),
      new Operation(HttpMethod.POST, "/v1/table/:id/analyze_plan", "AnalyzeTableQueryPlan"),
      new Operation(HttpMethod.POST, "/v1/table/:id/add_columns", "AlterTableAddColumns"),
      new Operation(HttpMethod.POST, "/v1/table/:id/backfill_column", "AlterTableBackfillColumns"),
      new Operation(HttpMethod.POST, "/v1/materialized_view/:id/refresh", "RefreshMaterializedView"),
      new Operation(HttpMethod.POST, "/v1/materialized_view/:id/create", "CreateMaterializedView"),
      new Operation(HttpMethod.POST, "/v1/table/:id/create_index", "CreateTableIndex"),
      new Operation(HttpMethod.POST, "/v1/table/:id/create_scalar_index", "CreateTableScalarIndex"),
      new Operation(HttpMethod.POST, "/v1/table/:id/index/list", "ListTableIndices"),
      new Operation(HttpMethod.POST, "/v1/table/:id/index/:index_name/stats", "DescribeTableIndexStats"),
      new Operation(HttpMethod.POST, "/v1/table/:id/index/:index_name/drop", "DropTableIndex"),
      new Operation(HttpMethod.POST, "/v1/transaction/:id/describe", "DescribeTransaction"),
      new Operation(HttpMethod.POST, "/v1/transaction/:id/alter", "AlterTransaction"));

  private UnsupportedRoutes() {}

  static void mount(Router router) {
    for (Operation op : OPERATIONS) {
      String operationId = op.operationId();
      router.route(op.method(), op.path())
          .handler(ctx -> ctx.fail(ApiException.unsupportedOperation(operationId)));
    }
  }

  static List<String> operationIds() {
    return OPERATIONS.stream().map(Operation::operationId).toList();
  }
}
