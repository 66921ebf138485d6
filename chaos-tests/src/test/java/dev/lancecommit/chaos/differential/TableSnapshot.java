package dev.lancecommit.chaos.differential;

import dev.lancecommit.testing.lance.LanceTables;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.arrow.vector.FieldVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.ipc.ArrowReader;
import org.apache.arrow.vector.util.Text;
import org.lance.Dataset;
import org.lance.Fragment;
import org.lance.FragmentMetadata;
import org.lance.index.Index;
import org.lance.ipc.LanceScanner;
import org.lance.ipc.ScanOptions;
import org.lance.schema.LanceField;

/**
 * A table's latest version as stock Lance reads it back, in a form two tables can be compared on: every row (sorted),
 * the schema with field ids and metadata, the indices with their fragment bitmaps, config, table metadata and the
 * fragment list.
 */
public record TableSnapshot(long version, List<String> rows, List<String> schema, List<String> indices,
    Map<String, String> config, Map<String, String> tableMetadata, List<String> fragments) {

  public static TableSnapshot read(LanceTables table) {
    try (Dataset ds = table.open()) {
      return new TableSnapshot(ds.version(), rows(ds), schema(ds), indices(ds), new TreeMap<>(ds.getConfig()),
          new TreeMap<>(ds.getTableMetadata()), fragments(ds));
    }
  }

  /** Every row as {@code col=value|col=value}, sorted. */
  public static List<String> rows(Dataset ds) {
    List<String> out = new ArrayList<>();
    try (LanceScanner scanner = ds.newScan(new ScanOptions.Builder().build());
        ArrowReader reader = scanner.scanBatches()) {
      while (reader.loadNextBatch()) {
        VectorSchemaRoot root = reader.getVectorSchemaRoot();
        for (int i = 0; i < root.getRowCount(); i++) {
          StringBuilder row = new StringBuilder();
          for (FieldVector vector : root.getFieldVectors()) {
            Object value = vector.getObject(i);
            row.append(row.isEmpty() ? "" : "|").append(vector.getName()).append('=')
                .append(value instanceof Text text ? text.toString() : value);
          }
          out.add(row.toString());
        }
      }
    } catch (Exception e) {
      throw new IllegalStateException("stock Lance could not scan " + ds.uri() + " at version " + ds.version(), e);
    }
    out.sort(null);
    return out;
  }

  private static List<String> schema(Dataset ds) {
    List<String> out = new ArrayList<>();
    for (LanceField field : ds.getLanceSchema().fields()) {
      describe(field, out);
    }
    out.add("schema metadata " + new TreeMap<>(ds.getLanceSchema().metadata()));
    return out;
  }

  private static void describe(LanceField field, List<String> out) {
    out.add(field.getId() + "/" + field.getParentId() + " " + field.getName() + " " + field.getLogicalType()
        + (field.isNullable() ? " null" : " not null") + " " + new TreeMap<>(field.getMetadata()));
    for (LanceField child : field.getChildren()) {
      describe(child, out);
    }
  }

  private static List<String> indices(Dataset ds) {
    List<String> out = new ArrayList<>();
    for (Index index : ds.getIndexes()) {
      out.add(index.name() + " uuid=" + index.uuid() + " fields=" + index.fields() + " fragments="
          + index.fragments().map(f -> f.stream().sorted().toList().toString()).orElse("none")
          + " built-at=" + index.datasetVersion());
    }
    out.sort(null);
    return out;
  }

  private static List<String> fragments(Dataset ds) {
    List<String> out = new ArrayList<>();
    for (Fragment fragment : ds.getFragments()) {
      FragmentMetadata m = fragment.metadata();
      StringBuilder s = new StringBuilder().append(m.getId()).append(": rows=").append(m.getPhysicalRows())
          .append(" deleted=").append(m.getNumDeletions()).append(" files=");
      for (org.lance.fragment.DataFile file : m.getFiles()) {
        s.append(file.getPath()).append(java.util.Arrays.toString(file.getFields())).append(' ');
      }
      if (m.getDeletionFile() != null) {
        s.append("deletion=").append(m.getDeletionFile().getId());
      }
      out.add(s.toString().trim());
    }
    return out;
  }

  /** The names of the components that differ from {@code other} (version, rows, schema, indices, ...). */
  public java.util.Set<String> differingComponents(TableSnapshot other) {
    java.util.Set<String> out = new java.util.TreeSet<>();
    for (String line : differences(other)) {
      out.add(line.substring(0, line.indexOf(':')));
    }
    return out;
  }

  /** What differs from {@code other}, one line per component; empty when equal. */
  public List<String> differences(TableSnapshot other) {
    List<String> out = new ArrayList<>();
    compare("version", version, other.version, out);
    compare("rows", rows, other.rows, out);
    compare("schema", schema, other.schema, out);
    compare("indices", indices, other.indices, out);
    compare("config", config, other.config, out);
    compare("table metadata", tableMetadata, other.tableMetadata, out);
    compare("fragments", fragments, other.fragments, out);
    return out;
  }

  private static void compare(String what, Object ours, Object theirs, List<String> out) {
    if (!ours.equals(theirs)) {
      out.add(what + ": Lance " + ours + " vs coordinator " + theirs);
    }
  }
}
