package dev.lancecommit.coordinator.http;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The spec's {@code page_token} and {@code limit} query parameters. A token is opaque to clients: base64url of a
 * kind letter and the last item of the previous page, so the next page resumes after that item. An absent or empty
 * token starts at the beginning; {@code limit} (at least 1) is capped at {@value #MAX_PAGE_SIZE}, which is also the
 * page size when no limit is given.
 */
final class Paging {
  static final int MAX_PAGE_SIZE = 1000;

  enum Kind {
    NAMESPACE_NAME('n'),
    TABLE_NAME('t'),
    TABLE_ID('a'),
    VERSION('v'),
    TAG_NAME('g'),
    BRANCH_NAME('b');

    private final char letter;

    Kind(char letter) {
      this.letter = letter;
    }
  }

  private Paging() {}

  static int limit(RoutingContext ctx) {
    Optional<String> text = QueryParams.string(ctx, "limit");
    if (text.isEmpty() || text.get().isEmpty()) {
      return MAX_PAGE_SIZE;
    }
    long limit;
    try {
      limit = Long.parseLong(text.get().trim());
    } catch (NumberFormatException e) {
      throw ApiException.invalidInput("Query parameter 'limit' must be a whole number, got '" + text.get() + "'");
    }
    if (limit < 1) {
      throw ApiException.invalidInput("Query parameter 'limit' must be at least 1, got " + limit);
    }
    return (int) Math.min(limit, MAX_PAGE_SIZE);
  }

  /** The cursor carried by the request's {@code page_token}, or empty for the first page. */
  static Optional<String> cursor(RoutingContext ctx, Kind kind) {
    Optional<String> token = QueryParams.string(ctx, "page_token").filter(t -> !t.isEmpty());
    if (token.isEmpty()) {
      return Optional.empty();
    }
    String decoded;
    try {
      decoded = new String(Base64.getUrlDecoder().decode(token.get()), StandardCharsets.UTF_8);
    } catch (IllegalArgumentException e) {
      throw badToken();
    }
    if (decoded.length() < 2 || decoded.charAt(0) != kind.letter || decoded.charAt(1) != ':') {
      throw badToken();
    }
    return Optional.of(decoded.substring(2));
  }

  static Optional<List<String>> idCursor(RoutingContext ctx) {
    return cursor(ctx, Kind.TABLE_ID).map(text -> {
      try {
        JsonArray array = new JsonArray(text);
        List<String> id = new ArrayList<>();
        for (Object part : array) {
          if (!(part instanceof String s)) {
            throw badToken();
          }
          id.add(s);
        }
        return List.copyOf(id);
      } catch (DecodeException e) {
        throw badToken();
      }
    });
  }

  static Optional<Long> versionCursor(RoutingContext ctx) {
    return cursor(ctx, Kind.VERSION).map(text -> {
      try {
        return Long.parseLong(text);
      } catch (NumberFormatException e) {
        throw badToken();
      }
    });
  }

  static String token(Kind kind, String cursor) {
    return Base64.getUrlEncoder().withoutPadding()
        .encodeToString((kind.letter + ":" + cursor).getBytes(StandardCharsets.UTF_8));
  }

  static String token(List<String> id) {
    return token(Kind.TABLE_ID, new JsonArray(List.copyOf(id)).encode());
  }

  /**
   * One page of a name-ordered map ({@code all} iterates in name order): the entries after the cursor, at most
   * {@code limit}, as {@code {field: {name: contents}}}, with a {@code page_token} when more follow.
   */
  static <T> JsonObject namePage(Map<String, T> all, Optional<String> after, int limit, Kind kind, String field,
      Function<T, JsonObject> contents) {
    JsonObject page = new JsonObject();
    String last = null;
    boolean more = false;
    for (Map.Entry<String, T> entry : all.entrySet()) {
      if (after.isPresent() && entry.getKey().compareTo(after.get()) <= 0) {
        continue;
      }
      if (page.size() == limit) {
        more = true;
        break;
      }
      page.put(entry.getKey(), contents.apply(entry.getValue()));
      last = entry.getKey();
    }
    JsonObject out = new JsonObject().put(field, page);
    if (more) {
      out.put("page_token", token(kind, last));
    }
    return out;
  }

  private static ApiException badToken() {
    return ApiException.invalidInput("Query parameter 'page_token' is not a token this listing issued",
        "Pass the page_token of the previous page of the same listing unchanged, or none for the first page");
  }
}
