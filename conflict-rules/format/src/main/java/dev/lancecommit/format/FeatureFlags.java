package dev.lancecommit.format;

import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Manifest feature flags (lance-format.md section 3.4, Lance {@code rust/lance-table/src/feature_flags.rs}). A
 * reader must refuse a manifest whose {@code reader_feature_flags} hold a bit it does not implement, and a writer must
 * refuse to commit on top of a latest manifest whose {@code writer_feature_flags} do.
 */
public final class FeatureFlags {
  public static final long DELETION_FILES = 1;
  public static final long STABLE_ROW_IDS = 2;
  /** Only read, to infer the data format of manifests without {@code data_format}; never set any more. */
  public static final long USE_V2_FORMAT_DEPRECATED = 4;
  public static final long TABLE_CONFIG = 8;
  public static final long BASE_PATHS = 16;
  public static final long DISABLE_TRANSACTION_FILE = 32;

  // Bits added by 2026 Lance. This build implements none of them, so a table carrying one is refused. Bits from
  // 2048 up mean different things on different Lance branches and are named "unknown" here; the semantic-types
  // flag, whose bit is not assigned yet, is configured through FormatFeatures.
  public static final long UNSTABLE_DATA_OVERLAY_FILES = 64;
  public static final long COVERED_INDEX_METADATA = 128;
  public static final long MIXED_DATA_FILE_VERSIONS = 256;
  public static final long FRAG_REUSE_WITH_STABLE_ROW_IDS = 512;
  public static final long FRAGMENT_REUSE_INDEX = 1024;

  public static final Set<Long> KNOWN_READER = Set.of(1L, 2L, 4L, 8L, 16L, 32L);
  public static final Set<Long> KNOWN_WRITER = Set.of(1L, 2L, 4L, 8L, 16L, 32L);
  public static final long KNOWN_READER_MASK = mask(KNOWN_READER);
  public static final long KNOWN_WRITER_MASK = mask(KNOWN_WRITER);

  private static final Map<Long, String> NAMES = names();

  private FeatureFlags() {}

  /**
   * Refuses a manifest this build cannot read.
   *
   * @throws UnsupportedFeatureException naming the unknown reader bits
   */
  public static void ensureReadable(Manifest manifest) {
    ensureReadable(manifest, FormatFeatures.standard());
  }

  /** {@link #ensureReadable(Manifest)} for a coordinator that also understands {@code features}. */
  public static void ensureReadable(Manifest manifest, FormatFeatures features) {
    ensureConsistent(manifest, features);
    long unknown = manifest.getReaderFeatureFlags() & ~features.knownReaderMask();
    if (unknown != 0) {
      throw new UnsupportedFeatureException(
          "table version " + manifest.getVersion() + " requires reader features this coordinator does not"
              + " support: " + describe(unknown));
    }
  }

  /**
   * Refuses to commit on top of {@code latest} when its writer flags hold a bit this build does not implement
   * (a newer Lance wrote it, and committing could break what that feature relies on).
   *
   * @throws UnsupportedFeatureException naming the unknown writer bits
   */
  public static void ensureWritable(Manifest latest) {
    ensureWritable(latest, FormatFeatures.standard());
  }

  /** {@link #ensureWritable(Manifest)} for a coordinator that also understands {@code features}. */
  public static void ensureWritable(Manifest latest, FormatFeatures features) {
    ensureConsistent(latest, features);
    long unknown = latest.getWriterFeatureFlags() & ~features.knownWriterMask();
    if (unknown != 0) {
      throw new UnsupportedFeatureException(
          "table version " + latest.getVersion() + " requires writer features this coordinator does not"
              + " support: " + describe(unknown));
    }
  }

  /** A paired flag (set in both words by definition) that is set in only one of them makes the manifest invalid. */
  private static void ensureConsistent(Manifest manifest, FormatFeatures features) {
    long paired = features.semanticTypesFlag();
    if (paired != 0 && (manifest.getReaderFeatureFlags() & paired) != (manifest.getWriterFeatureFlags() & paired)) {
      throw new UnsupportedFeatureException("table version " + manifest.getVersion() + " sets the semantic-types"
          + " flag (" + Long.toUnsignedString(paired) + ") in only one of its reader and writer feature flags; such"
          + " a manifest is invalid");
    }
  }

  /**
   * {@link #apply(Manifest.Builder, boolean, boolean)} with stable row ids taken from the builder's current reader
   * flags (a builder made from the previous manifest carries that table's setting, as Lance takes it from the
   * dataset) and a transaction file written.
   */
  public static Manifest.Builder apply(Manifest.Builder manifest) {
    boolean stableRowIds = (manifest.getReaderFeatureFlags() & STABLE_ROW_IDS) != 0;
    return apply(manifest, stableRowIds, true);
  }

  /**
   * Recomputes both flag words from the manifest's content, as Lance does before every manifest write (flags are
   * never inherited):
   *
   * <ul>
   *   <li>1 reader+writer: some fragment has a deletion file;
   *   <li>2 reader+writer: some fragment has a row id sequence, or {@code stableRowIds}; then every fragment must;
   *   <li>8 writer only: {@code config} is not empty;
   *   <li>16 reader+writer: {@code base_paths} is not empty;
   *   <li>32 writer only: no {@code _transactions/} file is written for this version.
   * </ul>
   *
   * The deprecated writer bit 4 is kept when {@code data_format} is absent, because it is then the only record of
   * the data file version.
   *
   * @throws UnsupportedFeatureException if the builder carries a bit this build does not know (it must not be
   *     silently dropped)
   * @throws IllegalArgumentException if only some fragments have row id sequences
   */
  public static Manifest.Builder apply(
      Manifest.Builder manifest, boolean stableRowIds, boolean transactionFileWritten) {
    return apply(manifest, stableRowIds, transactionFileWritten, FormatFeatures.standard(), 0);
  }

  /**
   * {@link #apply(Manifest.Builder, boolean, boolean)} for a coordinator that also understands {@code features},
   * then sets {@code sticky} in both words: flags that, once a table has them, stay set in every later version
   * whatever its content (the semantic-types flag, including across restores).
   */
  public static Manifest.Builder apply(Manifest.Builder manifest, boolean stableRowIds,
      boolean transactionFileWritten, FormatFeatures features, long sticky) {
    return apply(manifest, stableRowIds, transactionFileWritten, features, sticky,
        FragmentFacts.scan(manifest.getFragmentsList()));
  }

  /**
   * What the flags need to know about a manifest's fragments. {@link #scan} reads every fragment; a builder that
   * knows which fragments it carried over unchanged from a version whose flags it computed can tell them from the
   * others alone.
   *
   * @param withoutRowIds the first fragment (by id) without a row id sequence, or null
   */
  public record FragmentFacts(boolean anyDeletionFile, boolean anyRowIds, DataFragment withoutRowIds) {
    public static FragmentFacts scan(List<DataFragment> fragments) {
      boolean anyDeletionFile = false;
      boolean anyRowIds = false;
      DataFragment withoutRowIds = null;
      for (DataFragment fragment : fragments.toArray(new DataFragment[0])) {
        anyDeletionFile |= fragment.hasDeletionFile();
        if (hasRowIds(fragment)) {
          anyRowIds = true;
        } else if (withoutRowIds == null) {
          withoutRowIds = fragment;
        }
      }
      return new FragmentFacts(anyDeletionFile, anyRowIds, withoutRowIds);
    }
  }

  /** {@link #apply(Manifest.Builder, boolean, boolean, FormatFeatures, long)} with the fragments' {@code facts}. */
  public static Manifest.Builder apply(Manifest.Builder manifest, boolean stableRowIds,
      boolean transactionFileWritten, FormatFeatures features, long sticky, FragmentFacts facts) {
    if ((sticky & ~(features.knownReaderMask() & features.knownWriterMask())) != 0) {
      throw new IllegalArgumentException("Sticky flags " + describe(sticky) + " are not known to this build");
    }
    long unknownReader = manifest.getReaderFeatureFlags() & ~features.knownReaderMask();
    long unknownWriter = manifest.getWriterFeatureFlags() & ~features.knownWriterMask();
    if ((unknownReader | unknownWriter) != 0) {
      throw new UnsupportedFeatureException(
          "cannot recompute feature flags of a manifest carrying features this coordinator does not support: "
              + describe(unknownReader | unknownWriter));
    }
    long reader = 0;
    long writer = 0;
    if (!manifest.hasDataFormat()) {
      writer |= manifest.getWriterFeatureFlags() & USE_V2_FORMAT_DEPRECATED;
    }

    if (facts.anyDeletionFile()) {
      reader |= DELETION_FILES;
      writer |= DELETION_FILES;
    }
    if (facts.anyRowIds() || stableRowIds) {
      if (facts.withoutRowIds() != null) {
        throw new IllegalArgumentException("All fragments must have row ids: the table uses stable row ids but "
            + "fragment " + facts.withoutRowIds().getId() + " has no row id sequence");
      }
      reader |= STABLE_ROW_IDS;
      writer |= STABLE_ROW_IDS;
    }
    if (manifest.getConfigCount() > 0) {
      writer |= TABLE_CONFIG;
    }
    if (manifest.getBasePathsCount() > 0) {
      reader |= BASE_PATHS;
      writer |= BASE_PATHS;
    }
    if (!transactionFileWritten) {
      writer |= DISABLE_TRANSACTION_FILE;
    }
    reader |= sticky;
    writer |= sticky;
    return manifest.setReaderFeatureFlags(reader).setWriterFeatureFlags(writer);
  }

  public static boolean usesStableRowIds(Manifest manifest) {
    return (manifest.getReaderFeatureFlags() & STABLE_ROW_IDS) != 0;
  }

  /** E.g. {@code "64 (UNSTABLE_DATA_OVERLAY_FILES), 4096 (unknown)"}. */
  public static String describe(long flags) {
    List<String> parts = new ArrayList<>();
    for (int bit = 0; bit < 64; bit++) {
      long value = 1L << bit;
      if ((flags & value) != 0) {
        parts.add(Long.toUnsignedString(value) + " (" + NAMES.getOrDefault(value, "unknown") + ")");
      }
    }
    return parts.isEmpty() ? "none" : String.join(", ", parts);
  }

  public static boolean hasRowIds(DataFragment fragment) {
    return fragment.getRowIdSequenceCase() != DataFragment.RowIdSequenceCase.ROWIDSEQUENCE_NOT_SET;
  }

  private static long mask(Set<Long> bits) {
    return bits.stream().mapToLong(Long::longValue).reduce(0L, (a, b) -> a | b);
  }

  private static Map<Long, String> names() {
    Map<Long, String> names = new LinkedHashMap<>();
    names.put(DELETION_FILES, "DELETION_FILES");
    names.put(STABLE_ROW_IDS, "STABLE_ROW_IDS");
    names.put(USE_V2_FORMAT_DEPRECATED, "USE_V2_FORMAT_DEPRECATED");
    names.put(TABLE_CONFIG, "TABLE_CONFIG");
    names.put(BASE_PATHS, "BASE_PATHS");
    names.put(DISABLE_TRANSACTION_FILE, "DISABLE_TRANSACTION_FILE");
    names.put(UNSTABLE_DATA_OVERLAY_FILES, "UNSTABLE_DATA_OVERLAY_FILES");
    names.put(COVERED_INDEX_METADATA, "COVERED_INDEX_METADATA");
    names.put(MIXED_DATA_FILE_VERSIONS, "MIXED_DATA_FILE_VERSIONS");
    names.put(FRAG_REUSE_WITH_STABLE_ROW_IDS, "FRAG_REUSE_WITH_STABLE_ROW_IDS");
    names.put(FRAGMENT_REUSE_INDEX, "FRAGMENT_REUSE_INDEX");
    return Map.copyOf(names);
  }
}
