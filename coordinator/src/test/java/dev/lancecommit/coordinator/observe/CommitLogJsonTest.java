package dev.lancecommit.coordinator.observe;

import static org.assertj.core.api.Assertions.assertThat;

import ch.qos.logback.classic.LoggerContext;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/** {@code log.format=json}: the commit line is one JSON object with the commit's fields. */
class CommitLogJsonTest {
  @Test
  void theCommitLineIsOneJsonObjectWithEveryField() throws Exception {
    LoggerContext context = new LoggerContext();
    ByteArrayOutputStream captured = new ByteArrayOutputStream();
    PrintStream err = System.err;
    System.setErr(new PrintStream(captured, true, StandardCharsets.UTF_8));
    try {
      LogFormat.configureJson(context);
      new CommitLog(context.getLogger(CommitLog.LOGGER)).commit("sales$orders", 7L, "Append", "committed",
          12_345_678, 1, "4bf92f3577b34da6a3ce929d0e0e4736", null);
      context.stop();
    } finally {
      System.setErr(err);
    }
    String[] lines = captured.toString(StandardCharsets.UTF_8).strip().split("\n");
    assertThat(lines).hasSize(1);
    JsonNode line = new ObjectMapper().readTree(lines[0]);
    assertThat(line.get("level").asText()).isEqualTo("INFO");
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
