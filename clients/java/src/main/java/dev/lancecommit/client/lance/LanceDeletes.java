package dev.lancecommit.client.lance;

import dev.lancecommit.client.CommitRequest;
import dev.lancecommit.format.pb.DataFragment;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.lance.Dataset;
import org.lance.FragmentMetadata;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.roaringbitmap.longlong.Roaring64NavigableMap;

/**
 * A Delete computed with stock Lance on one version, without committing: the rows matching the predicate are found
 * by a filtered scan, each touched fragment gets a new deletion file from Lance ({@code Fragment.deleteRows}, which
 * extends the fragment's existing deletion vector), and the row addresses go along as {@code affected_rows} so the
 * coordinator can rebase the delete over concurrent deletes of other rows.
 */
public final class LanceDeletes {
  private static final String ROW_ADDRESS = "_rowaddr";

  private LanceDeletes() {}

  /** The Delete of every row of {@code dataset}'s version matching the SQL {@code predicate}. */
  public static CommitRequest delete(Dataset dataset, String predicate) {
    if (predicate == null || predicate.isBlank()) {
      throw new IllegalArgumentException("a delete needs a predicate (\"true\" deletes every row)");
    }
    Map<Integer, List<Integer>> offsetsByFragment = new TreeMap<>();
    Roaring64NavigableMap addresses = new Roaring64NavigableMap();
    String anyColumn = dataset.getSchema().getFields().get(0).getName();
    ScanOptions options = new ScanOptions.Builder()
        .columns(List.of(anyColumn))
        .filter(predicate)
        .withRowAddress(true)
        .build();
    try (LanceScanner scanner = dataset.newScan(options); ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        FieldVector vector = root.getVector(ROW_ADDRESS);
        for (int i = 0; i < root.getRowCount(); i++) {
          long address = ((Number) vector.getObject(i)).longValue();
          addresses.addLong(address);
          offsetsByFragment.computeIfAbsent((int) (address >>> 32), k -> new ArrayList<>()).add((int) address);
        }
      }
    } catch (RuntimeException e) {
      throw e;
    } catch (Exception e) {
      throw new IllegalStateException("could not scan " + dataset.uri() + " for rows where " + predicate, e);
    }
    List<DataFragment> updated = new ArrayList<>();
    List<Long> deleted = new ArrayList<>();
    for (Map.Entry<Integer, List<Integer>> e : offsetsByFragment.entrySet()) {
      FragmentMetadata after = dataset.getFragment(e.getKey()).deleteRows(e.getValue());
      if (after == null) {
        deleted.add(Integer.toUnsignedLong(e.getKey()));
      } else {
        updated.add(LanceProtos.fragment(after));
      }
    }
    return CommitRequest.of(TransactionFactory.delete(dataset.version(), updated, deleted, predicate), addresses);
  }
}
