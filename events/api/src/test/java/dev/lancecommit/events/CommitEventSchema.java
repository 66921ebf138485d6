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
import java.util.List;

/** The published JSON Schemas of the commit event data object (current, versions 1 and 2), from the main classpath. */
final class CommitEventSchema {
  private static final JsonSchema SCHEMA = load(CommitEvents.DATA_SCHEMA_RESOURCE);
  private static final JsonSchema VERSION_1 = load(CommitEvents.DATA_SCHEMA_V1_RESOURCE);
  private static final JsonSchema VERSION_2 = load(CommitEvents.DATA_SCHEMA_V2_RESOURCE);

  private CommitEventSchema() {}

  /** Validation errors of {@code data} against the current schema; empty when valid. */
  static List<String> errors(JsonNode data) {
    return SCHEMA.validate(data).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  /** Validation errors of {@code data} against version 1 of the schema (what older consumers validate). */
  static List<String> errorsAgainstVersion1(JsonNode data) {
    return VERSION_1.validate(data).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  /** Validation errors of {@code data} against version 2 of the schema. */
  static List<String> errorsAgainstVersion2(JsonNode data) {
    return VERSION_2.validate(data).stream().map(ValidationMessage::getMessage).sorted().toList();
  }

  private static JsonSchema load(String resource) {
    try (InputStream in = CommitEvents.class.getResourceAsStream(resource)) {
      if (in == null) {
        throw new IllegalStateException("missing " + resource);
      }
      SchemaValidatorsConfig config = SchemaValidatorsConfig.builder().formatAssertionsEnabled(true).build();
      return JsonSchemaFactory.getInstance(SpecVersion.VersionFlag.V202012).getSchema(in, config);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
