package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.storage.ObjectKeys;
import dev.lancecommit.coordinator.storage.ObjectStore;
import java.net.URI;
import java.net.URISyntaxException;
import java.nio.file.Path;

/**
 * Maps table locations to keys of the warehouse store and back. A table the coordinator commits to must live in
 * the store it writes manifests through, so a location outside the store is refused.
 */
final class Locations {
  private final ObjectStore store;
  private final String rootUri;
  private final String catalogBase;

  Locations(ObjectStore store, String catalogBase) {
    this.store = store;
    String root = store.uri();
    this.rootUri = root.endsWith("/") ? root.substring(0, root.length() - 1) : root;
    this.catalogBase = catalogBase;
  }

  /** The store key of a location given by a caller; refuses locations outside the store or inside the catalog. */
  String keyOf(String location) {
    if (location == null || location.isBlank()) {
      throw new InvalidCatalogInputException("Table location must not be empty");
    }
    String path = localFileUriToPath(location);
    while (path.length() > 1 && path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    String prefix = rootUri + "/";
    if (!path.startsWith(prefix) || path.length() == prefix.length()) {
      throw new InvalidCatalogInputException(
          "Location '" + location + "' is not inside the warehouse store " + store.uri());
    }
    String key = path.substring(prefix.length());
    try {
      ObjectKeys.checkKey(key);
    } catch (IllegalArgumentException e) {
      throw new InvalidCatalogInputException("Location '" + location + "' is not a valid path: " + e.getMessage());
    }
    if (key.equals(catalogBase) || key.startsWith(catalogBase + "/")) {
      throw new InvalidCatalogInputException("Location '" + location + "' is inside the catalog's own directory");
    }
    if (catalogBase.startsWith(key + "/")) {
      throw new InvalidCatalogInputException("Location '" + location + "' contains the catalog's own directory");
    }
    return key;
  }

  /** The canonical spelling of a location, as stored in the catalog. */
  String canonical(String key) {
    return store.uriOf(key);
  }

  /** A complete URI for DescribeTable's {@code table_uri}: local paths become {@code file://} URIs. */
  static String toUri(String location) {
    if (!location.startsWith("/")) {
      return location;
    }
    try {
      return new URI("file", "", location, null).toASCIIString();
    } catch (URISyntaxException e) {
      throw new IllegalStateException("Cannot express '" + location + "' as a URI", e);
    }
  }

  private String localFileUriToPath(String location) {
    if (!location.startsWith("file:") || !rootUri.isEmpty() && !rootUri.startsWith("/")) {
      return location;
    }
    try {
      return Path.of(new URI(location)).toString();
    } catch (URISyntaxException | IllegalArgumentException e) {
      throw new InvalidCatalogInputException("Location '" + location + "' is not a valid file URI");
    }
  }
}
