package dev.lancecommit.format;

import dev.lancecommit.format.pb.Manifest;

/**
 * The {@code writer_version} the coordinator stamps on every manifest it writes.
 *
 * <p>How stock Lance reads this field (Rust {@code lance-table/src/format/manifest.rs}, {@code lance/src/io/commit.rs},
 * {@code lance/src/dataset/fragment.rs}):
 *
 * <ul>
 *   <li>No writer_version at all: the next Lance commit recomputes {@code physical_rows}, deletion counts and file
 *       sizes of every fragment with I/O, readers distrust {@code physical_rows}, and every index's fragment bitmap
 *       is recalculated. So it is always written.
 *   <li>Since Lance PR #5111 (Oct 2025) the version is interpreted only when {@code library == "lance"}; for any
 *       other library {@code must_recalculate_fragment_bitmap} answers "a different library is not affected by the
 *       bug" and no old-bug workaround applies. A non-"lance" library is therefore the honest choice: it neither
 *       claims to be a Lance build nor inherits workarounds future Lance releases may add for their own past bugs.
 *   <li>Lance before #5111 ignores the library, parses {@code version} as {@code X.Y.Z} (panicking if it cannot) and
 *       recalculates every index bitmap when it is older than 0.8.15. The version must thus be a plain semver at or
 *       above 0.8.15: the coordinator's own 0.1.0 would trigger the workaround there.
 * </ul>
 *
 * Hence library {@value #LIBRARY} with version {@value #VERSION}, the Lance release whose manifest rules this
 * coordinator implements; the coordinator's own version goes into {@code build_metadata}, which only Lance's semver
 * reconstruction for library "lance" would look at.
 */
public final class WriterVersions {
  public static final String LIBRARY = "lance-commit-coordinator";
  public static final String VERSION = "7.0.0";
  public static final String BUILD_METADATA = "coordinator.0.1.0";

  private static final Manifest.WriterVersion COORDINATOR =
      Manifest.WriterVersion.newBuilder()
          .setLibrary(LIBRARY)
          .setVersion(VERSION)
          .setBuildMetadata(BUILD_METADATA)
          .build();

  private WriterVersions() {}

  public static Manifest.WriterVersion coordinator() {
    return COORDINATOR;
  }

  /** True when the manifest was written by this coordinator. */
  public static boolean writtenByCoordinator(Manifest manifest) {
    return manifest.hasWriterVersion() && LIBRARY.equals(manifest.getWriterVersion().getLibrary());
  }
}
