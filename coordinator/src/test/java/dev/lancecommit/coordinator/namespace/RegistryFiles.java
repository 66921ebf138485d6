package dev.lancecommit.coordinator.namespace;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.function.BiFunction;
import java.util.stream.Stream;

/** Reads a local warehouse's catalog files directly, the way an operator would, for assertions. */
final class RegistryFiles {
  private RegistryFiles() {}

  /**
   * The claim revisions of a location (given relative to the warehouse, unencoded), oldest first, as
   * {@code held:ns$t@3} or {@code released:ns$t@3} (table id and the entry revision the claim names).
   */
  static List<String> claims(Path warehouse, String location) {
    return revisions(warehouse.resolve("_catalog/locations").resolve(location).resolve("_claims"),
        (name, bytes) -> {
          LocationClaim claim = CatalogFiles.readClaim(name, bytes);
          return (claim.held() ? "held:" : "released:") + String.join("$", claim.tableId()) + "@"
              + claim.tableRevision();
        });
  }

  /** The states of a table entry's revisions, oldest first. */
  static List<String> tableStates(Path warehouse, String... id) {
    String namespace = String.join("/", List.of(id).subList(0, id.length - 1));
    Path dir = warehouse.resolve("_catalog/tree").resolve(namespace).resolve("_tables").resolve(id[id.length - 1]);
    return revisions(dir, (name, bytes) -> CatalogFiles.readTable(name, bytes).status().wireName());
  }

  private static List<String> revisions(Path dir, BiFunction<String, byte[], String> describe) {
    if (!Files.isDirectory(dir)) {
      return List.of();
    }
    try (Stream<Path> files = Files.list(dir)) {
      return files.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".json")).sorted()
          .map(name -> describe.apply(name, read(dir.resolve(name)))).toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static byte[] read(Path file) {
    try {
      return Files.readAllBytes(file);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
