package dev.lancecommit.rules.evolution;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import dev.lancecommit.format.pb.Field;
import dev.lancecommit.format.pb.Manifest;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.ColumnNotFoundException;
import dev.lancecommit.rules.InvalidTransactionException;
import dev.lancecommit.rules.SchemaContractException;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

class SchemaEvolutionTest {
  // id int64, `a.b` struct { c string, `d``e` int32 }, tags list<string>
  private static final List<Field> SCHEMA = List.of(
      field(0, -1, "id", "int64", false),
      field(1, -1, "a.b", "struct", true),
      field(2, 1, "c", "string", true),
      field(3, 1, "d`e", "int32", true),
      field(4, -1, "tags", "list", true),
      field(5, 4, "item", "string", true));
  private static final Manifest LATEST = Manifest.newBuilder().setVersion(7).addAllFields(SCHEMA).build();

  @Test
  void pathsQuoteDotsAndBackticks() {
    assertThat(FieldPaths.parse("`a.b`.`d``e`")).containsExactly("a.b", "d`e");
    assertThat(FieldPaths.resolve(SCHEMA, "`a.b`.`d``e`").getId()).isEqualTo(3);
    assertThat(FieldPaths.canonical(SCHEMA, SCHEMA.get(3))).isEqualTo("`a.b`.`d``e`");
    assertThat(FieldPaths.canonical(SCHEMA, SCHEMA.get(5))).isEqualTo("tags.item");
    // a leaf name alone names a top-level field only
    assertThatThrownBy(() -> FieldPaths.resolve(SCHEMA, "c")).isInstanceOf(ColumnNotFoundException.class);
    for (String bad : List.of("", "a..b", "`a", "`a`b", ".id", "id.")) {
      assertThatThrownBy(() -> FieldPaths.parse(bad)).as(bad).isInstanceOf(InvalidTransactionException.class);
    }
  }

  @Test
  void dropTakesChildrenAndEmptiedStructsAndKeepsTheRest() {
    Transaction drop = SchemaEvolution.dropColumns(LATEST, List.of("`a.b`.c", "`a.b`.`d``e`"), "u1");
    assertThat(drop.getReadVersion()).isEqualTo(7);
    assertThat(drop.getProject().getPreservesNullability()).isTrue();
    assertThat(drop.getProject().getSchemaList()).extracting(Field::getId).containsExactly(0, 4, 5);
    assertThat(SchemaEvolution.dropColumns(LATEST, List.of("tags"), "u2").getProject().getSchemaList())
        .extracting(Field::getId).containsExactly(0, 1, 2, 3);
    assertThatThrownBy(() -> SchemaEvolution.dropColumns(LATEST, List.of("tags.item"), "u3"))
        .isInstanceOf(InvalidTransactionException.class);
    assertThatThrownBy(() -> SchemaEvolution.dropColumns(LATEST, List.of("id", "`a.b`", "tags"), "u4"))
        .isInstanceOf(InvalidTransactionException.class).hasMessageContaining("all columns");
  }

  @Test
  void alterRenamesAndRelaxesButNeverCastsOrTightens() {
    Transaction alter = SchemaEvolution.alterColumns(LATEST, List.of(
        new SchemaEvolution.ColumnAlteration("`a.b`.c", Optional.of("see"), Optional.empty(), Optional.empty()),
        new SchemaEvolution.ColumnAlteration("id", Optional.empty(), Optional.of(true), Optional.of("int64"))),
        f -> f.getLogicalType(), "u");
    List<Field> after = alter.getProject().getSchemaList();
    assertThat(after).extracting(Field::getId).containsExactly(0, 1, 2, 3, 4, 5);
    assertThat(after.get(2).getName()).isEqualTo("see");
    assertThat(after.get(0).getNullable()).isTrue();
    assertThatThrownBy(() -> SchemaEvolution.alterColumns(LATEST, List.of(new SchemaEvolution.ColumnAlteration(
        "id", Optional.empty(), Optional.empty(), Optional.of("int32"))), f -> f.getLogicalType(), "u"))
        .isInstanceOf(SchemaContractException.class);
    assertThatThrownBy(() -> SchemaEvolution.alterColumns(LATEST, List.of(new SchemaEvolution.ColumnAlteration(
        "tags", Optional.empty(), Optional.of(false), Optional.empty())), f -> f.getLogicalType(), "u"))
        .isInstanceOf(SchemaContractException.class);
    assertThatThrownBy(() -> SchemaEvolution.alterColumns(LATEST, List.of(new SchemaEvolution.ColumnAlteration(
        "`a.b`.c", Optional.of("d`e"), Optional.empty(), Optional.empty())), f -> f.getLogicalType(), "u"))
        .isInstanceOf(InvalidTransactionException.class);
  }

  @Test
  void metadataUpdatesAreUpdateConfigMaps() {
    Transaction schema = SchemaEvolution.replaceSchemaMetadata(LATEST, Map.of("k", "v"), "u");
    assertThat(schema.getUpdateConfig().getSchemaMetadataUpdates().getReplace()).isTrue();
    assertThat(schema.getUpdateConfig().getSchemaMetadataUpdates().getUpdateEntriesList()).hasSize(1);
    Transaction fields = SchemaEvolution.updateFieldMetadata(LATEST, List.of(new SchemaEvolution.FieldMetadataUpdate(
        "`a.b`.c", new java.util.LinkedHashMap<>(Map.of("x", Optional.of("1"), "y", Optional.empty())), false)), "u");
    Transaction.UpdateMap map = fields.getUpdateConfig().getFieldMetadataUpdatesMap().get(2);
    assertThat(map.getReplace()).isFalse();
    assertThat(map.getUpdateEntriesList()).extracting(e -> e.getKey() + "=" + (e.hasValue() ? e.getValue() : "-"))
        .containsExactly("x=1", "y=-");
  }

  private static Field field(int id, int parent, String name, String type, boolean nullable) {
    return Field.newBuilder().setId(id).setParentId(parent).setName(name).setLogicalType(type)
        .setNullable(nullable).setType(type.equals("struct") || type.equals("list") ? Field.Type.PARENT
            : Field.Type.LEAF).build();
  }
}
