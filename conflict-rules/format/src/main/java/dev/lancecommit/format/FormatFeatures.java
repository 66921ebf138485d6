package dev.lancecommit.format;

import dev.lancecommit.format.pb.Manifest;

/**
 * The optional table-format features this coordinator is configured to understand, beyond the flags every build
 * implements ({@link FeatureFlags#KNOWN_READER}, {@link FeatureFlags#KNOWN_WRITER}).
 *
 * <p>Today that is the semantic-type contract ({@code FLAG_SEMANTIC_TYPES}, Lance's schema.md "Semantic Types").
 * Its specification names the flag but leaves the bit to the spec PR that has not been merged, and the bits above
 * 1024 mean different things on different Lance branches. So the bit is a deployment choice: with no bit
 * configured, a table carrying any unknown bit is refused, exactly as before; with a bit configured, tables whose
 * reader and writer words both carry it follow the semantic-type rules ({@code dev.lancecommit.rules.SemanticTypes}).
 *
 * @param semanticTypesFlag the single bit that marks a semantic-types table, or 0 when not configured
 */
public record FormatFeatures(long semanticTypesFlag) {
  /** Bits the reference assigns to other features (1..1024); a semantic-types bit must not reuse one. */
  private static final long ASSIGNED_BITS = (1L << 11) - 1;

  private static final FormatFeatures STANDARD = new FormatFeatures(0);

  public FormatFeatures {
    if (semanticTypesFlag != 0) {
      if (Long.bitCount(semanticTypesFlag) != 1) {
        throw new IllegalArgumentException("The semantic-types flag must be a single bit (a power of two), got "
            + Long.toUnsignedString(semanticTypesFlag));
      }
      if ((semanticTypesFlag & ASSIGNED_BITS) != 0) {
        throw new IllegalArgumentException("Bit " + semanticTypesFlag + " is Lance's "
            + FeatureFlags.describe(semanticTypesFlag) + "; the semantic-types flag needs a bit of its own (2048 or"
            + " above)");
      }
    }
  }

  /** No optional feature: every bit outside the known sets is refused. */
  public static FormatFeatures standard() {
    return STANDARD;
  }

  public static FormatFeatures withSemanticTypesFlag(long bit) {
    return bit == 0 ? STANDARD : new FormatFeatures(bit);
  }

  public boolean supportsSemanticTypes() {
    return semanticTypesFlag != 0;
  }

  public long knownReaderMask() {
    return FeatureFlags.KNOWN_READER_MASK | semanticTypesFlag;
  }

  public long knownWriterMask() {
    return FeatureFlags.KNOWN_WRITER_MASK | semanticTypesFlag;
  }

  /** Whether the manifest is a semantic-types table: both words carry the configured bit. */
  public boolean isSemanticTypesTable(Manifest manifest) {
    return supportsSemanticTypes()
        && (manifest.getReaderFeatureFlags() & semanticTypesFlag) != 0
        && (manifest.getWriterFeatureFlags() & semanticTypesFlag) != 0;
  }
}
