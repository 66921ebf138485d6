package dev.lancecommit.testing.lance;

import com.google.protobuf.InvalidProtocolBufferException;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;

/**
 * Reads what stock Lance wrote into a local table directory, with nothing but our protobufs: the raw
 * {@code _transactions/*.txn} files and the manifest of a version. Independent of the project's manifest codec on
 * purpose, so tests of that codec can use it as an oracle.
 */
public final class StockLanceFiles {

  private StockLanceFiles() {}

  /** Every transaction file of the table, parsed, ordered by read version. */
  public static List<Transaction> transactions(Path table) {
    List<Transaction> out = new ArrayList<>();
    for (Path file : list(table.resolve("_transactions"), ".txn")) {
      try {
        out.add(Transaction.parseFrom(Files.readAllBytes(file)));
      } catch (IOException e) {
        throw new UncheckedIOException("unreadable transaction file " + file, e);
      }
    }
    out.sort((a, b) -> Long.compareUnsigned(a.getReadVersion(), b.getReadVersion()));
    return out;
  }

  /** The one transaction file whose read version is {@code readVersion}. */
  public static Transaction transaction(Path table, long readVersion) {
    List<Transaction> matching = transactions(table).stream()
        .filter(t -> t.getReadVersion() == readVersion)
        .toList();
    if (matching.size() != 1) {
      throw new IllegalStateException(
          matching.size() + " transaction files with read version " + readVersion + " in " + table);
    }
    return matching.get(0);
  }

  /** The manifest protobuf of {@code version}, found by scanning {@code _versions/} (either naming scheme). */
  public static Manifest manifest(Path table, long version) {
    for (Path file : list(table.resolve("_versions"), ".manifest")) {
      Manifest manifest = readManifest(file);
      if (manifest.getVersion() == version) {
        return manifest;
      }
    }
    throw new IllegalStateException("no manifest of version " + version + " in " + table);
  }

  /** Decodes a manifest file: footer {@code [u64 pos][u16][u16]["LANC"]}, then {@code [u32 len][Manifest]} at pos. */
  public static Manifest readManifest(Path file) {
    try {
      byte[] bytes = Files.readAllBytes(file);
      ByteBuffer buf = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
      int footer = bytes.length - 16;
      if (footer < 0 || !"LANC".equals(new String(bytes, bytes.length - 4, 4, java.nio.charset.StandardCharsets.US_ASCII))) {
        throw new IllegalStateException("not a Lance manifest: " + file);
      }
      int pos = (int) buf.getLong(footer);
      int len = buf.getInt(pos);
      return Manifest.parseFrom(ByteBuffer.wrap(bytes, pos + 4, len));
    } catch (InvalidProtocolBufferException e) {
      throw new IllegalStateException("undecodable manifest " + file, e);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static List<Path> list(Path dir, String suffix) {
    try (Stream<Path> files = Files.list(dir)) {
      return files.filter(p -> p.getFileName().toString().endsWith(suffix)).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException("cannot list " + dir, e);
    }
  }
}
