package dev.lancecommit.e2e;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.ByteString;
import com.google.protobuf.UnknownFieldSet;
import dev.lancecommit.client.lance.TransactionFactory;
import dev.lancecommit.format.pb.DataFragment;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.testing.SettledFiles;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.function.Function;
import java.util.stream.Stream;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * Bad input gets a clear 4xx with the namespace-spec error body, and changes nothing: after each refusal the table's
 * files (manifests, transactions) and its latest version are exactly what they were.
 */
@ExtendWith(E2eServices.class)
class BadInputE2eTest {
  private E2eTable table;
  private Map<String, Long> filesBefore;

  @BeforeEach
  void createTable(E2eServices services) {
    table = E2eTable.declare(services.service(E2eServices.Store.LOCAL), "badinput");
    table.create(0, 4);
    table.append(1, 4, 4);
    // the version hint moves on after the answer: let it settle (no temp file of its write left) before the snapshot
    org.awaitility.Awaitility.await().atMost(java.time.Duration.ofSeconds(10)).until(() -> {
      Map<String, Long> files = metadataFiles();
      return files.containsKey("_versions/latest_version_hint.json")
          && files.keySet().stream().noneMatch(p -> p.contains("/.tmp-"))
          && Files.readString(table.localRoot().resolve("_versions/latest_version_hint.json")).contains(":2}");
    });
    filesBefore = metadataFiles();
    assertThat(filesBefore.keySet()).anyMatch(p -> p.startsWith("_versions/")).anyMatch(p -> p.startsWith("_transactions/"));
  }

  @AfterEach
  void close() {
    table.close();
  }

  @Test
  void truncatedProtobufIsRefused() {
    // field 4 (a map entry), length 16, but only two bytes follow
    byte[] truncated = {0x22, 0x10, 0x0a, 0x01};
    assertRefused(table.api().commitBytes(table.id(), truncated, CommitApi.PROTOBUF), 400, 13);
  }

  @Test
  void textBodyAsProtobufIsRefused() {
    byte[] text = "this is not a lance transaction".getBytes(StandardCharsets.UTF_8);
    assertRefused(table.api().commitBytes(table.id(), text, CommitApi.PROTOBUF), 400, 13);
  }

  @Test
  void emptyBodyIsRefused() {
    assertRefused(table.api().commitBytes(table.id(), new byte[0], CommitApi.PROTOBUF), 400, 13);
  }

  @Test
  void invalidBase64InJsonIsRefused() {
    byte[] body = "{\"transaction\": \"***not base64***\"}".getBytes(StandardCharsets.UTF_8);
    assertRefused(table.api().commitBytes(table.id(), body, CommitApi.JSON), 400, 13);
  }

  @Test
  void transactionWithoutOperationIsRefused() {
    Transaction noOperation = Transaction.newBuilder()
        .setReadVersion(2)
        .setUuid(TransactionFactory.newUuid())
        .build();
    assertRefused(table.api().commit(table.id(), noOperation), 400, 13);
  }

  @Test
  void unknownOperationIsRefused() {
    // An operation field number this build does not know (past the 2026 ones), carrying a message.
    UnknownFieldSet unknown = UnknownFieldSet.newBuilder()
        .addField(199, UnknownFieldSet.Field.newBuilder()
            .addLengthDelimited(ByteString.copyFromUtf8("\n\u0003abc")).build())
        .build();
    Transaction unknownOperation = Transaction.newBuilder()
        .setReadVersion(2)
        .setUuid(TransactionFactory.newUuid())
        .setUnknownFields(unknown)
        .build();
    assertRefused(table.api().commit(table.id(), unknownOperation), 400, 13);
    assertRefused(table.api().commitJson(table.id(), unknownOperation.toByteArray()), 400, 13);
  }

  @ParameterizedTest
  @ValueSource(strings = {"../x.lance", "../../other/data/x.lance", "s3://other/x.lance", "/abs/x.lance",
      "file:///abs/x.lance", "sub/../../x.lance"})
  void dataFilePathLeavingTheTableIsRefused(String path) {
    Transaction append = table.appendTransaction(2, 100, 2);
    Transaction escaping = withFirstDataFilePath(append, path);
    assertRefused(table.api().commit(table.id(), escaping), 400, 13);
  }

  @Test
  void readVersionAheadOfTheTableIsRefused() {
    assertRefused(table.api().commit(table.id(), table.appendTransaction(3, 100, 2)), 400, 13);
    assertRefused(table.api().commit(table.id(), table.appendTransaction(1000, 100, 2)), 400, 13);
  }

  @Test
  void unknownTableIsNotFound() {
    List<String> unknown = List.of(table.id().get(0), "no_such_table");
    assertRefused(table.api().commit(unknown, table.appendTransaction(2, 100, 2)), 404, 4);
  }

  @Test
  void aValidCommitAfterTheRefusalsStillLands() {
    truncatedProtobufIsRefused();
    readVersionAheadOfTheTableIsRefused();
    CommitApi.Response ok = table.append(2, 8, 4);
    assertThat(ok.version()).isEqualTo(3);
    assertThat(table.lance().readIds(3)).containsExactlyInAnyOrderElementsOf(VersionHistoryE2eTest.range(0, 12));
  }

  private void assertRefused(CommitApi.Response r, int status, int code) {
    assertThat(r.status()).as("answer %s", r).isEqualTo(status);
    assertThat(r.body()).as("error body of %s", r).isNotNull();
    assertThat(r.code()).as("error code of %s", r).isEqualTo(code);
    assertThat(r.body().path("error").asText()).as("error message of %s", r).isNotBlank();
    assertThat(metadataFiles()).as("table files after %s", r).isEqualTo(filesBefore);
    assertThat(table.describedVersion()).isEqualTo(2);
    assertThat(table.lance().latestVersion()).isEqualTo(2);
  }

  private static Transaction withFirstDataFilePath(Transaction txn, String path) {
    Function<DataFragment, DataFragment> rename = f -> f.toBuilder()
        .setFiles(0, f.getFiles(0).toBuilder().setPath(path))
        .build();
    Transaction.Builder b = txn.toBuilder();
    b.getAppendBuilder().setFragments(0, rename.apply(txn.getAppend().getFragments(0)));
    return b.build();
  }

  /**
   * Manifests and transaction files of the table (relative path -> size), once settled ({@link SettledFiles}: the
   * version hint moves after an answer); data files do not count.
   */
  private Map<String, Long> metadataFiles() {
    return SettledFiles.settled(this::listMetadataFiles, "metadata files of " + table.localRoot());
  }

  private Map<String, Long> listMetadataFiles() {
    Path root = table.localRoot();
    Map<String, Long> out = new TreeMap<>();
    for (String dir : List.of("_versions", "_transactions", "_deletions", "_indices")) {
      Path d = root.resolve(dir);
      if (!Files.isDirectory(d)) {
        continue;
      }
      try (Stream<Path> files = Files.walk(d)) {
        files.filter(Files::isRegularFile).forEach(p -> {
          try {
            out.put(root.relativize(p).toString(), Files.size(p));
          } catch (IOException e) {
            throw new UncheckedIOException(e);
          }
        });
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return out;
  }
}
