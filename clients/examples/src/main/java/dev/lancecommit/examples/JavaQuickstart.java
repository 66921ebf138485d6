package dev.lancecommit.examples;

import static java.nio.charset.StandardCharsets.UTF_8;

import dev.lancecommit.client.CommitClient;
import dev.lancecommit.client.TableId;
import dev.lancecommit.client.TableInfo;
import java.util.List;
import org.apache.arrow.memory.BufferAllocator;
import org.apache.arrow.memory.RootAllocator;
import org.apache.arrow.vector.BigIntVector;
import org.apache.arrow.vector.VarCharVector;
import org.apache.arrow.vector.VectorSchemaRoot;
import org.apache.arrow.vector.types.pojo.ArrowType;
import org.apache.arrow.vector.types.pojo.Field;
import org.apache.arrow.vector.types.pojo.Schema;
import org.lance.Fragment;
import org.lance.FragmentMetadata;

/**
 * The Java example of README.md's "Using it", between the README markers (ReadmeSnippetsTest keeps the README copy
 * identical; JavaQuickstartTest runs it against a coordinator). Run it with a coordinator's URL as the argument.
 */
public final class JavaQuickstart {
  private JavaQuickstart() {}

  public static void main(String[] args) {
    run(args.length > 0 ? args[0] : "http://127.0.0.1:9101");
  }

  /** Runs the example against the coordinator at {@code url}: table sales$orders, versions 1 to 3. */
  public static void run(String url) {
    // README-BEGIN java
    Schema schema = new Schema(List.of(
        Field.notNullable("id", new ArrowType.Int(64, true)),
        Field.nullable("item", ArrowType.Utf8.INSTANCE)));
    try (CommitClient client = CommitClient.builder().uri(url).build();  // .apiKey(..) / .bearerToken(..) with auth
        BufferAllocator allocator = new RootAllocator();
        VectorSchemaRoot rows = VectorSchemaRoot.create(schema, allocator)) {
      client.createNamespace("sales");
      TableId orders = TableId.of("sales", "orders");
      TableInfo table = client.declareTable(orders);  // where to write, with vended storage options

      ((BigIntVector) rows.getVector("id")).setSafe(0, 1);
      ((VarCharVector) rows.getVector("item")).setSafe(0, "apple".getBytes(UTF_8));
      rows.setRowCount(1);
      List<FragmentMetadata> fragments = Fragment.write().datasetUri(table.location())
          .storageOptions(table.storageOptions()).allocator(allocator).data(rows).execute();
      System.out.println("created version " + client.createTable(orders, fragments, schema).version());

      ((BigIntVector) rows.getVector("id")).setSafe(0, 2);
      ((VarCharVector) rows.getVector("item")).setSafe(0, "pear".getBytes(UTF_8));
      List<FragmentMetadata> more = Fragment.write().datasetUri(table.location())
          .storageOptions(table.storageOptions()).allocator(allocator).data(rows).execute();
      System.out.println("appended version " + client.append(orders, more).version());

      System.out.println("deleted in version " + client.delete(orders, "item = 'pear'").version());
    }
    // README-END java
  }
}
