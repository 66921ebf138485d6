package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.util.LogbackMDCAdapter;
import ch.qos.logback.core.OutputStreamAppender;
import ch.qos.logback.core.read.ListAppender;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code log.format=json}: the commit line, encoded by the JSON configuration's encoder, is one JSON object. */
class CommitLogJsonTest {
  @Test
  void theCommitLineIsOneJsonObjectWithEveryField() throws Exception {
    LoggerContext context = new LoggerContext();
    context.setMDCAdapter(new LogbackMDCAdapter()); // a context of its own, not the test JVM's
    LogFormat.configureJson(context);
    Logger root = context.getLogger(Logger.ROOT_LOGGER_NAME);
    @SuppressWarnings("unchecked")
    OutputStreamAppender<ILoggingEvent> stderr = (OutputStreamAppender<ILoggingEvent>) root.getAppender("STDERR");
    ListAppender<ILoggingEvent> events = new ListAppender<>();
    events.setContext(context);
    events.start();
    root.detachAppender(stderr);
    root.addAppender(events);

    new CommitLog(context.getLogger(CommitLog.LOGGER)).commit("sales$orders", 7L, "Append", "committed",
        12_345_678, 1, "4bf92f3577b34da6a3ce929d0e0e4736", null);
    assertThat(events.list).hasSize(1);
    String encoded = new String(stderr.getEncoder().encode(events.list.get(0)), StandardCharsets.UTF_8);
    context.stop();

    assertThat(encoded.strip()).doesNotContain("\n");
    JsonNode line = new ObjectMapper().readTree(encoded);
    assertThat(line.get("level").asText()).as(encoded).isEqualTo("INFO");
    assertThat(line.get("loggerName").asText()).isEqualTo(CommitLog.LOGGER);
    assertThat(line.get("formattedMessage").asText())
        .isEqualTo("commit table=sales$orders version=7 operation=Append outcome=committed duration_ms=12.346"
            + " group_size=1 trace_id=4bf92f3577b34da6a3ce929d0e0e4736");
    Map<String, String> fields = new HashMap<>();
    line.get("kvpList").forEach(kv -> kv.fields().forEachRemaining(f -> fields.put(f.getKey(), f.getValue().asText())));
    assertThat(fields).containsEntry("table", "sales$orders").containsEntry("version", "7")
        .containsEntry("operation", "Append").containsEntry("outcome", "committed")
        .containsEntry("duration_ms", "12.346").containsEntry("group_size", "1")
        .containsEntry("trace_id", "4bf92f3577b34da6a3ce929d0e0e4736");
  }
}
