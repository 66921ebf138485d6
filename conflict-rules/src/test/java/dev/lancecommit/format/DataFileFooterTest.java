package dev.lancecommit.format;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.testing.lance.LanceTables;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.lance.FragmentMetadata;

/** The footer of data files stock Lance writes, read as Lance's v2 reader reads it, and what it refuses. */
class DataFileFooterTest {
  @TempDir Path dir;
  private byte[] file;

  @BeforeEach
  void writeAFileWithLance() throws IOException {
    try (LanceTables table = LanceTables.local(dir.resolve("t.lance"))) {
      List<FragmentMetadata> written = table.writeRows(0, 37);
      file = Files.readAllBytes(dir.resolve("t.lance/data").resolve(written.get(0).getFiles().get(0).getPath()));
    }
  }

  @Test
  void aLanceFileSaysItsRowsColumnsVersionAndFieldIds() {
    DataFileFooter.Summary summary = read(file, file.length);
    assertThat(summary.numRows()).isEqualTo(37);
    assertThat(summary.numColumns()).isEqualTo(2);
    assertThat(summary.fieldIds()).containsExactly(0, 1);
    assertThat(summary.flat()).isTrue();
    assertThat(summary.version()).isEqualTo("2.1");
  }

  @Test
  void aDescriptorBeforeTheTailIsReadWithOneMoreRangedRead() {
    AtomicInteger reads = new AtomicInteger();
    byte[] tail = Arrays.copyOfRange(file, file.length - DataFileFooter.FOOTER_BYTES - 16, file.length);
    DataFileFooter.Summary summary = DataFileFooter.read(tail, file.length, (offset, length) -> {
      reads.incrementAndGet();
      return Arrays.copyOfRange(file, (int) offset, (int) offset + length);
    });
    assertThat(summary.numRows()).isEqualTo(37);
    assertThat(reads.get()).isEqualTo(1);
  }

  @Test
  void whatIsNotALanceV2FileIsRefusedSayingWhy() {
    byte[] badMagic = file.clone();
    badMagic[badMagic.length - 1] = 'X';
    assertRefused(badMagic, "magic");
    assertRefused(Arrays.copyOf(file, 20), "fewer than a Lance file footer");
    assertRefused(Arrays.copyOf(file, file.length - 7), "magic");

    byte[] legacy = file.clone();
    footer(legacy).putShort(32, (short) 0).putShort(34, (short) 2);
    assertRefused(legacy, "legacy");
    byte[] future = file.clone();
    footer(future).putShort(32, (short) 9).putShort(34, (short) 9);
    assertRefused(future, "9.9");
    byte[] noBuffers = file.clone();
    footer(noBuffers).putInt(24, 0);
    assertRefused(noBuffers, "no global buffers");
    byte[] offsetsPastTheEnd = file.clone();
    footer(offsetsPastTheEnd).putLong(16, file.length);
    assertRefused(offsetsPastTheEnd, "do not fit the file");
  }

  /** The 40-byte footer of {@code bytes}, little-endian, positioned at its start. */
  private static ByteBuffer footer(byte[] bytes) {
    return ByteBuffer.wrap(bytes, bytes.length - DataFileFooter.FOOTER_BYTES, DataFileFooter.FOOTER_BYTES).slice()
        .order(ByteOrder.LITTLE_ENDIAN);
  }

  private static void assertRefused(byte[] bytes, String reason) {
    assertThatThrownBy(() -> read(bytes, bytes.length)).isInstanceOf(DataFileFooter.CorruptDataFileException.class)
        .hasMessageContaining(reason);
  }

  private static DataFileFooter.Summary read(byte[] bytes, long size) {
    byte[] tail = Arrays.copyOfRange(bytes, (int) Math.max(0, size - DataFileFooter.TAIL_BYTES), (int) size);
    return DataFileFooter.read(tail, size, (offset, length) -> Arrays.copyOfRange(bytes, (int) offset,
        (int) Math.min(bytes.length, offset + length)));
  }
}
