package dev.lancecommit.coordinator.http;

import io.vertx.ext.web.RoutingContext;
import java.util.List;
import java.util.Locale;
import java.util.Optional;

/** Typed, strict query parameters: a value given twice or of the wrong type is a 400 naming the parameter. */
final class QueryParams {
  private QueryParams() {}

  static Optional<String> string(RoutingContext ctx, String name) {
    List<String> values = ctx.queryParam(name);
    if (values.isEmpty()) {
      return Optional.empty();
    }
    if (values.size() > 1) {
      throw ApiException.invalidInput("Query parameter '" + name + "' must be given at most once");
    }
    return Optional.of(values.get(0));
  }

  static Optional<Boolean> bool(RoutingContext ctx, String name) {
    return string(ctx, name).map(value -> {
      String lower = value.toLowerCase(Locale.ROOT);
      if (!lower.equals("true") && !lower.equals("false")) {
        throw ApiException.invalidInput("Query parameter '" + name + "' must be true or false");
      }
      return Boolean.parseBoolean(lower);
    });
  }

  /** A flag the spec passes in the query; a body field of the same name is honoured when the query has none. */
  static boolean flag(RoutingContext ctx, JsonBody body, String name, boolean defaultValue) {
    Optional<Boolean> query = bool(ctx, name);
    return query.isPresent() ? query.get() : body.bool(name).orElse(defaultValue);
  }
}
