package dev.lancecommit.coordinator.cluster;

import java.nio.BufferUnderflowException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Which instance owns each partition of the events topic after one rebalance, by advertised URL. The group leader
 * computes it with the assignment and every member receives it with its own (see {@link UrlAdvertisingAssignor}), so
 * all members of one generation hold the same map. A partition being moved between two members in a cooperative
 * rebalance has no owner in the map of the first round.
 *
 * @param generation the group generation the map was received in (0 before the first)
 * @param owners per partition, the owner's URL or null
 */
public record OwnershipMap(int generation, List<String> owners) {
  private static final short FORMAT = 1;

  /** Nothing known yet: no partition count, no owners. */
  public static final OwnershipMap EMPTY = new OwnershipMap(0, List.of());

  public OwnershipMap {
    owners = Collections.unmodifiableList(new ArrayList<>(owners));
  }

  public int partitions() {
    return owners.size();
  }

  public Optional<String> owner(int partition) {
    return partition >= 0 && partition < owners.size() ? Optional.ofNullable(owners.get(partition))
        : Optional.empty();
  }

  /** The same owners, received in {@code generationId}. */
  public OwnershipMap inGeneration(int generationId) {
    return new OwnershipMap(generationId, owners);
  }

  /** The owners as bytes (a table of member URLs, then one index per partition; -1 for none). */
  public ByteBuffer encode() {
    Map<String, Integer> members = new LinkedHashMap<>();
    for (String owner : owners) {
      if (owner != null) {
        members.putIfAbsent(owner, members.size());
      }
    }
    List<byte[]> urls = members.keySet().stream().map(url -> url.getBytes(StandardCharsets.UTF_8)).toList();
    int size = 2 + 4 + urls.stream().mapToInt(u -> 4 + u.length).sum() + 4 + 4 * owners.size();
    ByteBuffer out = ByteBuffer.allocate(size);
    out.putShort(FORMAT);
    out.putInt(urls.size());
    urls.forEach(url -> out.putInt(url.length).put(url));
    out.putInt(owners.size());
    owners.forEach(owner -> out.putInt(owner == null ? -1 : members.get(owner)));
    return out.flip();
  }

  /**
   * Reads what {@link #encode} wrote.
   *
   * @throws IllegalArgumentException when the bytes are not such a map
   */
  public static OwnershipMap decode(ByteBuffer bytes) {
    ByteBuffer in = bytes.duplicate();
    try {
      short format = in.getShort();
      if (format != FORMAT) {
        throw new IllegalArgumentException("ownership map format " + format + " is not " + FORMAT);
      }
      int memberCount = in.getInt();
      checkCount(memberCount, in);
      List<String> members = new ArrayList<>(memberCount);
      for (int i = 0; i < memberCount; i++) {
        int length = in.getInt();
        checkCount(length, in);
        byte[] url = new byte[length];
        in.get(url);
        members.add(new String(url, StandardCharsets.UTF_8));
      }
      int partitions = in.getInt();
      checkCount(partitions, in);
      List<String> owners = new ArrayList<>(partitions);
      for (int p = 0; p < partitions; p++) {
        int index = in.getInt();
        if (index < -1 || index >= memberCount) {
          throw new IllegalArgumentException("partition " + p + " names member " + index + " of " + memberCount);
        }
        owners.add(index < 0 ? null : members.get(index));
      }
      return new OwnershipMap(0, owners);
    } catch (BufferUnderflowException e) {
      throw new IllegalArgumentException("ownership map is truncated", e);
    }
  }

  private static void checkCount(int count, ByteBuffer in) {
    if (count < 0 || count > in.remaining()) {
      throw new IllegalArgumentException("ownership map names " + count + " entries in " + in.remaining()
          + " bytes");
    }
  }
}
