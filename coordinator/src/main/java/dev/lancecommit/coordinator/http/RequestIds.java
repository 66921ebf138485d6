package dev.lancecommit.coordinator.http;

import dev.lancecommit.coordinator.namespace.Identifiers;
import io.vertx.ext.web.RoutingContext;
import java.util.Arrays;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The {@code id} path parameter split by the {@code delimiter} query parameter (default {@code $}); the delimiter
 * alone names the root namespace. An {@code id} in the body must name the same object.
 */
final class RequestIds {
  static final String DEFAULT_DELIMITER = "$";

  private RequestIds() {}

  static List<String> fromPath(RoutingContext ctx) {
    String raw = ctx.pathParam("id");
    String delimiter = delimiter(ctx);
    if (raw == null || raw.isEmpty()) {
      throw ApiException.invalidInput("Missing identifier in path");
    }
    if (raw.equals(delimiter)) {
      return List.of();
    }
    List<String> id = List.of(raw.split(Pattern.quote(delimiter), -1));
    Identifiers.validate(id);
    return id;
  }

  /**
   * The path id, checked against the body's {@code id} when the body has one. An empty body id counts as absent:
   * the stock Java client sends {@code "id": []} whenever the caller did not set it.
   */
  static List<String> resolve(RoutingContext ctx, Optional<List<String>> bodyId) {
    List<String> id = fromPath(ctx);
    if (bodyId.isPresent() && !bodyId.get().isEmpty() && !bodyId.get().equals(id)) {
      throw ApiException.invalidInput(
          "Identifier in body does not match the path",
          "Path names " + Identifiers.display(id) + " but the body id is " + bodyId.get());
    }
    return id;
  }

  static List<String> tableId(RoutingContext ctx, Optional<List<String>> bodyId) {
    List<String> id = resolve(ctx, bodyId);
    if (id.isEmpty()) {
      throw ApiException.invalidInput("A table identifier needs at least a table name, not the root namespace");
    }
    return id;
  }

  static String delimiter(RoutingContext ctx) {
    List<String> values = ctx.queryParam("delimiter");
    if (values.isEmpty()) {
      return DEFAULT_DELIMITER;
    }
    if (values.size() > 1 || values.get(0).isEmpty()) {
      throw ApiException.invalidInput("The delimiter query parameter must be given once and be non-empty",
          "Got delimiter values " + Arrays.toString(values.toArray()));
    }
    return values.get(0);
  }
}
