package dev.lancecommit.format;

import com.google.protobuf.CodedOutputStream;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Manifest;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.List;

/**
 * A manifest's fragments as its Manifest message encodes them (field 2: for each fragment a tag, a length and the
 * fragment's bytes), kept with the version so that the next version, which carries most fragments over as the very
 * same messages, copies their bytes instead of encoding every fragment of the table again. The bytes are exactly what
 * protobuf writes for the list.
 *
 * <p>The bytes live in the manifest file they were written into ({@link #writeTo}), not in an array of their own: a
 * version's file is then one allocation and one copy of the table's fragments, which on a large table is most of
 * what a version costs besides writing it (each such array is a humongous object to the garbage collector).
 */
public final class EncodedFragments {
  private static final int FIELD = Manifest.FRAGMENTS_FIELD_NUMBER;

  private final List<DataFragment> fragments;
  private final boolean sortedById;
  /** What the bytes are copied from until they are written (then dropped: no chain of every earlier version). */
  private EncodedFragments previous;
  /** How many fragments begin the list as {@link #previous}'s first ones, whose bytes are copied as one run. */
  private final int prefix;
  /**
   * For each fragment after the prefix, the index of the same message in {@link #previous} whose bytes it copies,
   * or -1.
   */
  private int[] from;
  /** Where each fragment's bytes start, relative to the first; one more entry: the total. */
  private final int[] starts;
  private final int copied;
  /** Where the bytes were written; null until they are. */
  private volatile Placed placed;

  private record Placed(byte[] file, int offset) {}

  private EncodedFragments(List<DataFragment> fragments, boolean sortedById, EncodedFragments previous, int prefix,
      int[] from, int[] starts, int copied) {
    this.fragments = fragments;
    this.sortedById = sortedById;
    this.previous = previous;
    this.prefix = prefix;
    this.from = from;
    this.starts = starts;
    this.copied = copied;
  }

  /**
   * The fragments of {@code state}, to be written reusing the bytes {@code previous} wrote for fragments it encoded as
   * the very same messages ({@link FragmentNamesakes}); every fragment is encoded when either list is not sorted or
   * {@code previous} was never written.
   */
  public static EncodedFragments of(TableState state, EncodedFragments previous) {
    List<DataFragment> fragments = state.manifest().getFragmentsList();
    boolean sorted = state.fragmentsSortedById();
    int n = fragments.size();
    int[] starts = new int[n + 1];
    boolean reuse = previous != null && previous.placed != null && sorted && previous.sortedById;
    FragmentNamesakes namesakes = reuse ? FragmentNamesakes.of(previous.fragments, state) : null;
    // The carried prefix starts where it did in the version before: its offsets are copied, not summed again.
    int prefix = reuse ? namesakes.carriedPrefix() : 0;
    if (prefix > 0) {
      System.arraycopy(previous.starts, 0, starts, 0, prefix + 1);
    }
    int[] changed = reuse ? namesakes.changed() : null;
    int nextChanged = 0;
    int[] from = new int[n - prefix];
    long total = starts[prefix];
    int copied = prefix;
    for (int i = prefix; i < n; i++) {
      boolean carried = reuse && (nextChanged >= changed.length || changed[nextChanged] != i);
      if (reuse && !carried) {
        nextChanged++;
      }
      int source = carried ? namesakes.namesake(i) : -1;
      from[i - prefix] = source;
      starts[i] = (int) total;
      if (source >= 0) {
        total += previous.starts[source + 1] - previous.starts[source];
        copied++;
      } else {
        total += CodedOutputStream.computeMessageSize(FIELD, fragments.get(i));
      }
      if (total > Integer.MAX_VALUE - 64) {
        throw new IllegalStateException("The fragments of version " + state.version() + " encode to more than 2 GiB");
      }
    }
    starts[n] = (int) total;
    return new EncodedFragments(fragments, sorted, reuse ? previous : null, prefix, from, starts, copied);
  }

  /** Bytes of the encoded fragments. */
  public int size() {
    return starts[starts.length - 1];
  }

  /** Fragments whose bytes are copied from the version before rather than encoded. */
  public int copied() {
    return copied;
  }

  /**
   * Writes the encoded fragments into {@code file} at {@code offset} (exactly {@link #size()} bytes), where the next
   * version copies them from.
   */
  synchronized void writeTo(byte[] file, int offset) {
    Placed written = placed;
    if (written != null) {
      System.arraycopy(written.file, written.offset, file, offset, size()); // encoded into another file before
      return;
    }
    Placed source = previous == null ? null : previous.placed;
    if (prefix > 0) {
      System.arraycopy(source.file, source.offset, file, offset, starts[prefix]);
    }
    int n = fragments.size();
    int i = prefix;
    while (i < n) {
      int at = from[i - prefix];
      if (at >= 0) {
        int run = 1;
        while (i + run < n && from[i + run - prefix] == at + run) {
          run++; // carried over in the same order: one copy for the whole run
        }
        System.arraycopy(source.file, source.offset + previous.starts[at], file, offset + starts[i],
            previous.starts[at + run] - previous.starts[at]);
        i += run;
      } else {
        write(fragments.get(i), file, offset + starts[i], starts[i + 1] - starts[i]);
        i++;
      }
    }
    placed = new Placed(file, offset);
    previous = null;
    from = null;
  }

  private static void write(DataFragment fragment, byte[] into, int offset, int length) {
    CodedOutputStream out = CodedOutputStream.newInstance(into, offset, length);
    try {
      out.writeMessage(FIELD, fragment);
      out.checkNoSpaceLeft();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** True when these are the bytes of exactly this list (the same list object a manifest returns for its field). */
  boolean encodes(List<DataFragment> list) {
    return fragments == list;
  }
}
