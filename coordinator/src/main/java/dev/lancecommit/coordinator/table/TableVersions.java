package dev.lancecommit.coordinator.table;

import dev.lancecommit.format.CorruptManifestException;
import dev.lancecommit.format.ManifestNaming;
import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.OptionalLong;
import java.util.Set;

/**
 * The main-line versions found in a table's {@code _versions/} directory at one moment, ascending, parsed the way
 * Lance names them ({@link ManifestNaming}: both schemes; detached manifests, staged copies, temp files and
 * {@code latest_version_hint.json} are not versions). Immutable.
 */
public final class TableVersions {
  private static final TableVersions NONE = new TableVersions(List.of(), Optional.empty(), false);

  private final List<Long> versions;
  private final Optional<ManifestNaming.Scheme> scheme;
  private final boolean mixedSchemes;

  private TableVersions(List<Long> versions, Optional<ManifestNaming.Scheme> scheme, boolean mixedSchemes) {
    this.versions = versions;
    this.scheme = scheme;
    this.mixedSchemes = mixedSchemes;
  }

  /** The versions named in a listing of {@code _versions/} (file names, any order). */
  static TableVersions of(Collection<String> names) {
    List<Long> parsed = new ArrayList<>();
    Set<ManifestNaming.Scheme> seen = EnumSet.noneOf(ManifestNaming.Scheme.class);
    for (String name : names) {
      ManifestNaming.detectScheme(name).ifPresent(seen::add);
      ManifestNaming.parse(name).ifPresent(p -> parsed.add(p.version()));
    }
    if (parsed.isEmpty()) {
      return NONE;
    }
    Collections.sort(parsed);
    List<Long> distinct = new ArrayList<>(parsed.size());
    for (Long version : parsed) {
      if (distinct.isEmpty() || !distinct.get(distinct.size() - 1).equals(version)) {
        distinct.add(version);
      }
    }
    boolean mixed = seen.size() > 1;
    return new TableVersions(List.copyOf(distinct), mixed ? Optional.empty() : seen.stream().findFirst(), mixed);
  }

  /** The versions before {@code version} (what a reader may see while {@code version} is hidden). */
  public TableVersions before(long version) {
    if (versions.isEmpty() || versions.get(versions.size() - 1) < version) {
      return this;
    }
    List<Long> kept = versions.stream().filter(v -> v < version).toList();
    return kept.isEmpty() ? NONE : new TableVersions(kept, scheme, mixedSchemes);
  }

  /** Every version, ascending. */
  public List<Long> versions() {
    return versions;
  }

  /**
   * The naming scheme the table's manifests use; empty when it has none.
   *
   * @throws CorruptManifestException when {@code _versions/} mixes V1 and V2 names (Lance refuses such a table too)
   */
  public Optional<ManifestNaming.Scheme> scheme() {
    if (mixedSchemes) {
      throw new CorruptManifestException(
          "_versions/ mixes V1 and V2 manifest names (Found V2 manifest in a V1 manifest directory)");
    }
    return scheme;
  }

  public OptionalLong latest() {
    return versions.isEmpty() ? OptionalLong.empty() : OptionalLong.of(versions.get(versions.size() - 1));
  }

  /** The oldest version present: 1 for most tables, the source's version for a clone, later after a cleanup. */
  public OptionalLong first() {
    return versions.isEmpty() ? OptionalLong.empty() : OptionalLong.of(versions.get(0));
  }

  public boolean contains(long version) {
    return Collections.binarySearch(versions, version) >= 0;
  }

  public boolean isEmpty() {
    return versions.isEmpty();
  }

  public int size() {
    return versions.size();
  }
}
