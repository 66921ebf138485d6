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
 */
public final class EncodedFragments {
  private static final int FIELD = Manifest.FRAGMENTS_FIELD_NUMBER;

  private final List<DataFragment> fragments;
  private final boolean sortedById;
  private final byte[] bytes;
  private final int[] starts;

  private EncodedFragments(List<DataFragment> fragments, boolean sortedById, byte[] bytes, int[] starts) {
    this.fragments = fragments;
    this.sortedById = sortedById;
    this.bytes = bytes;
    this.starts = starts;
  }

  /**
   * The fragments of {@code state}, reusing the bytes {@code previous} holds for fragments it encoded as the very same
   * messages ({@link FragmentNamesakes}); every fragment is encoded when either list is not sorted.
   */
  public static EncodedFragments of(TableState state, EncodedFragments previous) {
    List<DataFragment> fragments = state.manifest().getFragmentsList();
    boolean sorted = state.fragmentsSortedById();
    int n = fragments.size();
    int[] from = new int[n];
    int[] starts = new int[n + 1];
    boolean reuse = previous != null && sorted && previous.sortedById;
    FragmentNamesakes namesakes = reuse ? FragmentNamesakes.of(previous.fragments, fragments) : null;
    long total = 0;
    for (int i = 0; i < n; i++) {
      from[i] = reuse && namesakes.carried(i) ? namesakes.namesake(i) : -1;
      starts[i] = (int) total;
      total += from[i] >= 0 ? previous.starts[from[i] + 1] - previous.starts[from[i]]
          : CodedOutputStream.computeMessageSize(FIELD, fragments.get(i));
      if (total > Integer.MAX_VALUE - 64) {
        throw new IllegalStateException("The fragments of version " + state.version() + " encode to more than 2 GiB");
      }
    }
    starts[n] = (int) total;
    byte[] bytes = new byte[(int) total];
    int i = 0;
    while (i < n) {
      if (from[i] >= 0) {
        int run = 1;
        while (i + run < n && from[i + run] == from[i] + run) {
          run++; // carried over in the same order: one copy for the whole run
        }
        System.arraycopy(previous.bytes, previous.starts[from[i]], bytes, starts[i],
            previous.starts[from[i] + run] - previous.starts[from[i]]);
        i += run;
      } else {
        write(fragments.get(i), bytes, starts[i], starts[i + 1] - starts[i]);
        i++;
      }
    }
    return new EncodedFragments(fragments, sorted, bytes, starts);
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

  byte[] bytes() {
    return bytes;
  }
}
