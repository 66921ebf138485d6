package dev.lancecommit.chaos.bench;

import static org.assertj.core.api.Assertions.assertThat;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** The benchmark runs end to end: every client gets 200 for both requests (it stops otherwise); no timing is judged. */
class HttpTransportBenchmarkSmokeTest {

  @Test
  void everyClientSendsBothRequestsAndTheTableHasARowForEach(@TempDir Path work) throws Exception {
    ByteArrayOutputStream printed = new ByteArrayOutputStream();

    List<HttpTransportBenchmark.Row> rows = HttpTransportBenchmark.run(work, 20, 1,
        new PrintStream(printed, true, StandardCharsets.UTF_8));

    assertThat(rows).extracting(HttpTransportBenchmark.Row::request).containsOnly("GET /healthz",
        "CommitTable resubmission");
    assertThat(rows).extracting(HttpTransportBenchmark.Row::client).containsExactly(
        "JDK java.net.http", "Apache HttpClient 5 classic", "HttpURLConnection",
        "JDK java.net.http", "Apache HttpClient 5 classic", "HttpURLConnection");
    assertThat(rows).allSatisfy(row -> assertThat(row.p50Millis()).isPositive());
    assertThat(printed.toString(StandardCharsets.UTF_8)).contains("| CommitTable resubmission | HttpURLConnection |");
  }
}
