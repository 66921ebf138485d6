package dev.lancecommit.events;

import com.fasterxml.jackson.databind.JsonNode;
import com.networknt.schema.JsonSchema;
import com.networknt.schema.JsonSchemaFactory;
import com.networknt.schema.SchemaValidatorsConfig;
import com.networknt.schema.SpecVersion;
import com.networknt.schema.ValidationMessage;
import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.EnumMap;
import java.util.List;
import java.util.Map;

/** The published JSON Schemas of the table event data objects, one per type, loaded from the main classpath. */
final class TableEventSchemas {
  private static final Map<TableEvent.Type, JsonSchema> SCHEMAS = loadAll();

  private TableEventSchemas() {}

  /** Validation errors of {@code data} against the schema of {@code type}; empty when valid. */
  static List<String> errors(TableEvent.Type type, JsonNode data) {
    return SCHEMAS.get(type).validate(data).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  private static Map<TableEvent.Type, JsonSchema> loadAll() {
    Map<TableEvent.Type, JsonSchema> schemas = new EnumMap<>(TableEvent.Type.class);
    SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
    JsonSchemaFactory factory = JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012);
    for (TableEvent.Type type : TableEvent.Type.values()) {
      try (InputStream in = TableEvents.class.getResourceAsStream(type.schemaResource())) {
        if (in == null) {
          throw new IllegalStateException("missing " + type.schemaResource());
        }
        schemas.put(type, factory.getSchema(in, config));
      } catch (IOException e) {
        throw new UncheckedIOException(e);
      }
    }
    return schemas;
  }
}
