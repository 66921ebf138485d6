package dev.lancecommit.examples;

import static org.assertj.core.api.Assertions.assertThat;

import com.google.protobuf.DescriptorProtos.FileDescriptorProto;
import com.google.protobuf.DescriptorProtos.FileDescriptorSet;
import com.google.protobuf.Descriptors.FileDescriptor;
import dev.lancecommit.format.pb.RowIdProtos;
import dev.lancecommit.format.pb.TransactionProtos;
import dev.lancecommit.testing.PythonClients;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The Python client builds its protobuf messages from {@code lance_format.binpb}, the descriptor set of the format
 * module's .proto files; it must be the one the Java build compiles. Run with
 * {@code -Dpython.descriptors.regenerate=true} to write it instead (see {@link #REGENERATE}).
 */
class PythonDescriptorsAreFreshTest {
  static final String REGENERATE = "mvn -B -o -pl clients/examples -am verify -Dtest=PythonDescriptorsAreFreshTest"
      + " -Dsurefire.failIfNoSpecifiedTests=false -Dpython.descriptors.regenerate=true";
  private static final Path FILE = PythonClients.repositoryRoot()
      .resolve("clients/python/src/lance_commit/lance_format.binpb");

  @Test
  void thePythonClientsDescriptorSetIsTheFormatModulesProtos() throws IOException {
    FileDescriptorSet compiled = descriptorSet(List.of(TransactionProtos.getDescriptor(), RowIdProtos.getDescriptor()));
    if (Boolean.getBoolean("python.descriptors.regenerate")) {
      Files.write(FILE, compiled.toByteArray());
    }
    assertThat(FILE).as("missing; regenerate with: " + REGENERATE).exists();
    FileDescriptorSet shipped = FileDescriptorSet.parseFrom(Files.readAllBytes(FILE));
    assertThat(shipped.getFileList()).extracting(FileDescriptorProto::getName)
        .containsExactly("google/protobuf/any.proto", "lance/file.proto", "google/protobuf/timestamp.proto",
            "lance/table.proto", "lance/transaction.proto", "lance/rowids.proto");
    assertThat(shipped.equals(compiled))
        .as("clients/python/src/lance_commit/lance_format.binpb is stale; regenerate with: " + REGENERATE)
        .isTrue();
  }

  /** The files and everything they import, dependencies first. */
  private static FileDescriptorSet descriptorSet(List<FileDescriptor> roots) {
    Map<String, FileDescriptorProto> ordered = new LinkedHashMap<>();
    for (FileDescriptor root : roots) {
      add(root, ordered);
    }
    return FileDescriptorSet.newBuilder().addAllFile(ordered.values()).build();
  }

  private static void add(FileDescriptor file, Map<String, FileDescriptorProto> ordered) {
    if (ordered.containsKey(file.getName())) {
      return;
    }
    for (FileDescriptor dependency : file.getDependencies()) {
      add(dependency, ordered);
    }
    ordered.put(file.getName(), file.toProto());
  }
}
