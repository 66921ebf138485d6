package dev.lancecommit.rules;

import static org.assertj.core.api.Assertions.assertThatCode;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.TableState;
import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import java.util.List;
import java.util.UUID;
import org.junit.jupiter.api.Test;

class SchemaContractTest {
  private static final Field ID = field("id", 0, -1, "int64", false);
  private static final Field INFO = field("info", 1, -1, "struct", true);
  private static final Field NAME = field("name", 2, 1, "string", true);
  private static final TableState TABLE = new TableState(
      Manifest.newBuilder().setVersion(3).addAllFields(List.of(ID, INFO, NAME)).build(), List.of());

  @Test
  void projectMayDropAddAndRelaxButNotRetypeAField() {
    assertThatCode(() -> SchemaContract.check(TABLE, project(ID, INFO, NAME, field("extra", 3, -1, "double", true))))
        .doesNotThrowAnyException();
    assertThatCode(() -> SchemaContract.check(TABLE, project(field("id", 0, -1, "int64", true))))
        .doesNotThrowAnyException();
    assertThatThrownBy(() -> SchemaContract.check(TABLE, project(ID, INFO, field("name", 2, 1, "large_string", true))))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("info.name")
        .hasMessageContaining("string to large_string")
        .extracting(e -> ((SchemaContractException) e).fieldPath())
        .isEqualTo("info.name");
  }

  @Test
  void mergeMayNotTightenNullabilityOrMoveAField() {
    assertThatThrownBy(() -> SchemaContract.check(TABLE, merge(ID, INFO, field("name", 2, 1, "string", false))))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("non-nullable");
    assertThatThrownBy(() -> SchemaContract.check(TABLE, merge(ID, INFO, field("name", 2, -1, "string", true))))
        .isInstanceOf(SchemaContractException.class)
        .hasMessageContaining("another parent");
  }

  @Test
  void operationsThatKeepTheSchemaAndNewTablesAreNotChecked() {
    Transaction append = Transaction.newBuilder().setUuid(UUID.randomUUID().toString())
        .setAppend(Transaction.Append.getDefaultInstance()).build();
    assertThatCode(() -> SchemaContract.check(TABLE, append)).doesNotThrowAnyException();
    assertThatCode(() -> SchemaContract.check(null, project(field("name", 2, -1, "binary", true))))
        .doesNotThrowAnyException();
  }

  private static Transaction project(Field... fields) {
    return Transaction.newBuilder().setUuid(UUID.randomUUID().toString()).setReadVersion(3)
        .setProject(Transaction.Project.newBuilder().addAllSchema(List.of(fields))).build();
  }

  private static Transaction merge(Field... fields) {
    return Transaction.newBuilder().setUuid(UUID.randomUUID().toString()).setReadVersion(3)
        .setMerge(Transaction.Merge.newBuilder().addAllSchema(List.of(fields))).build();
  }

  private static Field field(String name, int id, int parent, String type, boolean nullable) {
    return Field.newBuilder().setName(name).setId(id).setParentId(parent).setLogicalType(type).setNullable(nullable)
        .build();
  }
}
