package dev.lancecommit.rules;

import com.google.protobuf.Any;
import com.google.protobuf.ByteString;
import com.google.protobuf.InvalidProtocolBufferException;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.format.pb.CompactedSsTable;
import dev.lancecommit.format.pb.IndexMetadata;
import dev.lancecommit.format.pb.MemWalIndexDetails;
import dev.lancecommit.format.pb.ShardedMemWalIndexDetails;
import dev.lancecommit.format.pb.Transaction;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Optional;
import java.util.Set;

/**
 * Which MemWAL generation the raw MemWAL bytes of a transaction or index are in. Lance 2026 re-used the Nov-2025 field
 * numbers with other types (Update field 5, UpdateMemWalState fields 1 and 2, the MemWAL index details), so the
 * protobuf alone does not say; the wire shape does:
 *
 * <ul>
 *   <li>an entry is a Nov-2025 {@code MemWal} when it decodes cleanly as one (an id with a non-empty region, no
 *       unknown fields) and a 2026 {@code CompactedSsTable} when it decodes cleanly as one (a 16-byte shard id, no
 *       unknown fields). Their field 2 differs in wire type (string vs varint), so only a MemWal holding nothing but
 *       a 16-character region and generation 0 decodes as both;
 *   <li>UpdateMemWalState: {@code updated} or {@code removed} entries exist only in Nov-2025; a varint field 2 is the
 *       2026 (v11 beta) {@code require_index_catchup};
 *   <li>MemWAL index details: Nov-2025 field 1 is length-delimited, 2026 field 1 a varint.
 * </ul>
 *
 * A reading that fits both generations is {@link Shape#EITHER}; the caller decides with more context (the table's
 * MemWAL index) or refuses.
 */
public final class MemWalFormat {
  private MemWalFormat() {}

  public enum Generation {
    NOV_2025("Nov-2025"), LANCE_2026("2026");

    private final String label;

    Generation(String label) {
      this.label = label;
    }

    @Override
    public String toString() {
      return label;
    }
  }

  public enum Shape {
    /** No MemWAL entries at all: means the same in both generations as far as entries go. */
    EMPTY,
    NOV_2025,
    LANCE_2026,
    /** Non-empty, and every entry reads cleanly as either generation. */
    EITHER,
    /** Not readable as either generation (or mixing both); {@link Reading#problem()} says why. */
    NEITHER
  }

  /**
   * One side's MemWAL entries: the shape, the Nov-2025 MemWals (for NOV_2025 and EITHER) and the 2026 compacted
   * SSTables (for LANCE_2026 and EITHER).
   */
  public record Reading(Shape shape, List<MemWalIndexDetails.MemWal> memWals, List<CompactedSsTable> sstables,
      String problem) {
    public Reading {
      memWals = List.copyOf(memWals);
      sstables = List.copyOf(sstables);
    }

    static final Reading EMPTY_READING = new Reading(Shape.EMPTY, List.of(), List.of(), "");

    static Reading neither(String problem) {
      return new Reading(Shape.NEITHER, List.of(), List.of(), problem);
    }

    /** The generations this reading is consistent with; empty for NEITHER. */
    public Set<Generation> generations() {
      return switch (shape) {
        case EMPTY, EITHER -> EnumSet.allOf(Generation.class);
        case NOV_2025 -> EnumSet.of(Generation.NOV_2025);
        case LANCE_2026 -> EnumSet.of(Generation.LANCE_2026);
        case NEITHER -> EnumSet.noneOf(Generation.class);
      };
    }

    Reading as(Shape narrowed) {
      return new Reading(narrowed, memWals, sstables, problem);
    }
  }

  /** A Nov-2025 MemWal, when the bytes decode cleanly as one. */
  public static Optional<MemWalIndexDetails.MemWal> asMemWal(ByteString bytes) {
    try {
      MemWalIndexDetails.MemWal memWal = MemWalIndexDetails.MemWal.parseFrom(bytes);
      boolean clean = memWal.getUnknownFields().asMap().isEmpty() && memWal.hasId()
          && memWal.getId().getUnknownFields().asMap().isEmpty() && !memWal.getId().getRegion().isEmpty();
      return clean ? Optional.of(memWal) : Optional.empty();
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /** A 2026 CompactedSsTable, when the bytes decode cleanly as one. */
  public static Optional<CompactedSsTable> asCompactedSsTable(ByteString bytes) {
    try {
      CompactedSsTable sstable = CompactedSsTable.parseFrom(bytes);
      return clean(sstable) ? Optional.of(sstable) : Optional.empty();
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  private static boolean clean(CompactedSsTable sstable) {
    return sstable.getUnknownFields().asMap().isEmpty() && sstable.hasShardId()
        && sstable.getShardId().getUnknownFields().asMap().isEmpty() && sstable.getShardId().getUuid().size() == 16;
  }

  /** Raw entries that are all of one generation (Update field 5, UpdateMemWalState field 1). */
  public static Reading entries(List<ByteString> raw) {
    if (raw.isEmpty()) {
      return Reading.EMPTY_READING;
    }
    List<MemWalIndexDetails.MemWal> memWals = new ArrayList<>();
    List<CompactedSsTable> sstables = new ArrayList<>();
    boolean onlyNov = false;
    boolean onlyLance = false;
    for (int i = 0; i < raw.size(); i++) {
      Optional<MemWalIndexDetails.MemWal> memWal = asMemWal(raw.get(i));
      Optional<CompactedSsTable> sstable = asCompactedSsTable(raw.get(i));
      if (memWal.isEmpty() && sstable.isEmpty()) {
        return Reading.neither("entry " + i + " is neither a Nov-2025 MemWal nor a 2026 CompactedSsTable");
      }
      memWal.ifPresent(memWals::add);
      sstable.ifPresent(sstables::add);
      onlyNov |= sstable.isEmpty();
      onlyLance |= memWal.isEmpty();
    }
    if (onlyNov && onlyLance) {
      return Reading.neither("the entries mix Nov-2025 MemWals and 2026 CompactedSsTables");
    }
    if (onlyNov) {
      return new Reading(Shape.NOV_2025, memWals, List.of(), "");
    }
    if (onlyLance) {
      return new Reading(Shape.LANCE_2026, List.of(), sstables, "");
    }
    return new Reading(Shape.EITHER, memWals, sstables, "");
  }

  /** Update field 5: Nov-2025 mem_wal_to_merge or 2026 compacted_sstables. */
  public static Reading update(Transaction.Update update) {
    return entries(update.getMemWalToMergeOrCompactedSstablesList());
  }

  /**
   * UpdateMemWalState. The 2026 shape carries compacted SSTables in field 1 and at most a varint field 2; the
   * Nov-2025 shape may carry MemWals in fields 1 to 3. Any other unknown field is NEITHER.
   */
  public static Reading state(Transaction.UpdateMemWalState state) {
    boolean novEvidence = state.getUpdatedCount() > 0 || state.getRemovedCount() > 0;
    boolean lanceEvidence = false;
    for (var entry : state.getUnknownFields().asMap().entrySet()) {
      UnknownFieldSet.Field field = entry.getValue();
      boolean onlyVarint = field.getLengthDelimitedList().isEmpty() && field.getFixed32List().isEmpty()
          && field.getFixed64List().isEmpty() && field.getGroupList().isEmpty();
      if (entry.getKey() == 2 && onlyVarint) {
        lanceEvidence = true;
      } else {
        return Reading.neither("field " + entry.getKey() + " is unknown to both MemWAL generations");
      }
    }
    if (novEvidence && lanceEvidence) {
      return Reading.neither("it has Nov-2025 updated/removed MemWals and the 2026 require_index_catchup flag");
    }
    Reading added = entries(state.getAddedOrCompactedSstablesList());
    if (added.shape() == Shape.NEITHER) {
      return added;
    }
    if (novEvidence) {
      return added.shape() == Shape.LANCE_2026
          ? Reading.neither("it has 2026 compacted SSTables and Nov-2025 updated/removed MemWals")
          : added.as(Shape.NOV_2025);
    }
    if (lanceEvidence) {
      return added.shape() == Shape.NOV_2025
          ? Reading.neither("it has Nov-2025 added MemWals and the 2026 require_index_catchup flag")
          : added.as(Shape.LANCE_2026);
    }
    return added;
  }

  /** The 2026 view of an UpdateMemWalState (only meaningful when {@link #state} says LANCE_2026 or EITHER). */
  public static Transaction.UpdateMemWalState2026 as2026(Transaction.UpdateMemWalState state) {
    try {
      return Transaction.UpdateMemWalState2026.parseFrom(state.toByteString());
    } catch (InvalidProtocolBufferException e) {
      throw new InvalidTransactionException("UpdateMemWalState is not a 2026 UpdateMemWalState", e);
    }
  }

  /**
   * The MemWAL index's details. EMPTY for empty details (an index with nothing in it reads the same in both
   * generations); the compacted SSTables of 2026 details; the MemWals of Nov-2025 details.
   */
  public static Reading indexDetails(IndexMetadata index) {
    if (!index.hasIndexDetails() || !index.getIndexDetails().getTypeUrl().endsWith("MemWalIndexDetails")) {
      return Reading.neither("the MemWAL index has no MemWalIndexDetails");
    }
    ByteString value = index.getIndexDetails().getValue();
    if (value.isEmpty()) {
      return Reading.EMPTY_READING;
    }
    Optional<MemWalIndexDetails> nov = novDetails(value);
    Optional<ShardedMemWalIndexDetails> lance = lanceDetails(value);
    if (nov.isPresent() && lance.isPresent()) {
      return new Reading(Shape.EITHER, nov.get().getMemWalListList(), lance.get().getCompactedSstablesList(), "");
    }
    if (nov.isPresent()) {
      return new Reading(Shape.NOV_2025, nov.get().getMemWalListList(), List.of(), "");
    }
    if (lance.isPresent()) {
      return new Reading(Shape.LANCE_2026, List.of(), lance.get().getCompactedSstablesList(), "");
    }
    return Reading.neither("its MemWalIndexDetails decode as neither generation");
  }

  static Optional<MemWalIndexDetails> novDetails(ByteString value) {
    try {
      MemWalIndexDetails details = MemWalIndexDetails.parseFrom(value);
      if (!details.getUnknownFields().asMap().isEmpty()) {
        return Optional.empty();
      }
      for (MemWalIndexDetails.MemWal memWal : details.getMemWalListList()) {
        if (asMemWal(memWal.toByteString()).isEmpty()) {
          return Optional.empty();
        }
      }
      return Optional.of(details);
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /**
   * 2026 details. Fields this build does not know are allowed (and kept): 2026 details keep growing, and only the
   * compacted SSTables matter here; those must be clean.
   */
  static Optional<ShardedMemWalIndexDetails> lanceDetails(ByteString value) {
    try {
      ShardedMemWalIndexDetails details = ShardedMemWalIndexDetails.parseFrom(value);
      // A Nov-2025 details message puts its MemWals in field 1, a varint here: that lands in unknown fields.
      if (details.getUnknownFields().hasField(1) || details.getUnknownFields().hasField(2)
          || details.getUnknownFields().hasField(9)) {
        return Optional.empty();
      }
      return details.getCompactedSstablesList().stream().allMatch(MemWalFormat::clean)
          ? Optional.of(details) : Optional.empty();
    } catch (InvalidProtocolBufferException e) {
      return Optional.empty();
    }
  }

  /** The 2026 details of an index known to hold them. */
  static ShardedMemWalIndexDetails lanceDetailsOf(Any details) {
    return lanceDetails(details.getValue()).orElseThrow(
        () -> new UnsupportedOperationTypeException("a 2026 MemWAL update on a table whose MemWAL index is not 2026"));
  }

  /** "shard 0f1e… generation 7". */
  public static String describe(CompactedSsTable sstable) {
    return "shard " + Uuids.format(sstable.getShardId().getUuid()) + " generation " + sstable.getGeneration();
  }

  public static String shardId(CompactedSsTable sstable) {
    return Uuids.format(sstable.getShardId().getUuid());
  }
}
