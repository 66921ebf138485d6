package dev.lancecommit.client;

import java.net.URI;
import java.time.Duration;
import java.time.Instant;
import java.time.InstantSource;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;

/**
 * Where to send a table's commits. In a cluster of coordinators every instance accepts a commit and forwards it to
 * the table's owner, answering with the owner's URL in {@value #SERVED_BY}; remembering it saves the forward's round
 * trip on the next commit. An owner that moved forwards in turn and names the new one; an owner that cannot be
 * reached is forgotten and not tried again for {@link #UNREACHABLE_FOR}, and the commit goes to the configured URL.
 * Only URLs of the configured URL's scheme are followed (credentials never go over plain HTTP when the client was
 * given HTTPS). Thread-safe.
 */
final class TableOwners {
  static final String SERVED_BY = "x-lcc-served-by";
  static final Duration UNREACHABLE_FOR = Duration.ofMinutes(1);
  /** Past this many tables the map starts over: it is a shortcut, never needed for correctness. */
  private static final int MAX_TABLES = 10_000;

  private final String configured;
  private final String scheme;
  private final boolean enabled;
  private final InstantSource clock;
  private final Map<String, String> owners = new ConcurrentHashMap<>();
  private final Map<String, Instant> unreachable = new ConcurrentHashMap<>();

  TableOwners(String configuredUrl, boolean enabled, InstantSource clock) {
    this.configured = configuredUrl;
    this.scheme = URI.create(configuredUrl).getScheme().toLowerCase(Locale.ROOT);
    this.enabled = enabled;
    this.clock = clock;
  }

  /** The base URL to send {@code table}'s next commit to. */
  String urlFor(TableId table) {
    if (!enabled) {
      return configured;
    }
    String owner = owners.get(table.joined());
    if (owner == null) {
      return configured;
    }
    Instant until = unreachable.get(owner);
    if (until != null) {
      if (clock.instant().isBefore(until)) {
        owners.remove(table.joined(), owner);
        return configured;
      }
      unreachable.remove(owner, until);
    }
    return owner;
  }

  /** An answer to a commit sent to {@code sentTo} came back, naming the instance that served it, if another. */
  void answered(TableId table, String sentTo, Optional<String> servedBy) {
    if (!enabled) {
      return;
    }
    Optional<String> owner = servedBy.map(TableOwners::withoutTrailingSlash).filter(this::followable);
    if (owner.isPresent()) {
      if (owners.size() >= MAX_TABLES) {
        owners.clear();
      }
      owners.put(table.joined(), owner.get());
    } else if (servedBy.isEmpty() && !sentTo.equals(configured)) {
      owners.putIfAbsent(table.joined(), sentTo); // the owner answered itself: keep going there
    }
  }

  /** A commit sent to {@code sentTo} got no answer: forget it as the owner of any table for a while. */
  void unreachable(TableId table, String sentTo) {
    if (!sentTo.equals(configured)) {
      owners.remove(table.joined(), sentTo);
      unreachable.put(sentTo, clock.instant().plus(UNREACHABLE_FOR));
    }
  }

  private boolean followable(String url) {
    try {
      URI uri = URI.create(url);
      return uri.getHost() != null && scheme.equals(uri.getScheme().toLowerCase(Locale.ROOT));
    } catch (RuntimeException e) {
      return false;
    }
  }

  private static String withoutTrailingSlash(String url) {
    return url.endsWith("/") ? url.substring(0, url.length() - 1) : url;
  }
}
