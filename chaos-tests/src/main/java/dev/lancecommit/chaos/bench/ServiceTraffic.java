package dev.lancecommit.chaos.bench;

import dev.lancecommit.e2e.CommitApi;
import java.io.IOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * What a coordinator in service answers besides commits, sent to the coordinator's own JVM while a warm-up runs: every
 * {@link #PERIOD} a metrics scrape (as Prometheus does), a namespace created, a table declared in it and described.
 *
 * <p>Why: a warm-up of commits alone lets the JIT compile the shared request path (Vert.x, Netty, Jackson) for commit
 * requests only. The measured run then starts with exactly these other calls (its namespace, its table, the scrape
 * that counts its metrics), whose first appearance in minutes sent that compiled code back to the interpreter
 * (2026-12-04: 140-160 methods made not entrant within 0.2 s, and the compiler took 14-18% of the cores in the window
 * after a 300 s warm-up against 7-9% during it). A long-running coordinator serves these calls all along, so its
 * compiled code already expects them; the warm-up now does too.
 */
final class ServiceTraffic implements AutoCloseable {
  static final Duration PERIOD = Duration.ofSeconds(2);

  private final String restUrl;
  private final CommitApi api;
  private final String prefix;
  private final Thread thread;
  private final AtomicInteger rounds = new AtomicInteger();
  private final AtomicInteger failures = new AtomicInteger();
  private final CountDownLatch stopped = new CountDownLatch(1);

  private ServiceTraffic(String restUrl, String prefix) {
    this.restUrl = restUrl;
    this.api = new CommitApi(restUrl);
    this.prefix = prefix;
    this.thread = new Thread(this::run, "bench-service-traffic");
    this.thread.setDaemon(true);
  }

  /** Starts sending; {@code prefix} names the namespaces it creates (one per round, never written to). */
  static ServiceTraffic start(String restUrl, String prefix) {
    ServiceTraffic traffic = new ServiceTraffic(restUrl, prefix);
    traffic.thread.start();
    return traffic;
  }

  private void run() {
    HttpClient http = HttpClient.newHttpClient();
    while (stopped.getCount() > 0) {
      int round = rounds.get() + 1;
      try {
        HttpResponse<Void> scrape = http.send(HttpRequest.newBuilder(URI.create(restUrl + "/metrics")).build(),
            HttpResponse.BodyHandlers.discarding());
        String namespace = prefix + "-" + round;
        api.createNamespace(namespace);
        List<String> table = List.of(namespace, "t");
        api.declareTable(table);
        CommitApi.Response described = api.describe(table);
        if (scrape.statusCode() != 200 || described.status() != 200) {
          throw new IllegalStateException("metrics " + scrape.statusCode() + ", describe " + described);
        }
      } catch (IOException | RuntimeException e) {
        failures.incrementAndGet();
      } catch (InterruptedException e) {
        return;
      }
      rounds.set(round);
      try {
        stopped.await(PERIOD.toMillis(), TimeUnit.MILLISECONDS);
      } catch (InterruptedException e) {
        return;
      }
    }
  }

  /** Rounds sent so far, failed ones included. */
  int rounds() {
    return rounds.get();
  }

  /** Rounds in which a call failed or answered other than 200. */
  int failures() {
    return failures.get();
  }

  @Override
  public void close() {
    stopped.countDown(); // a round under way finishes first
    try {
      thread.join(Duration.ofSeconds(30).toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    int sent = rounds.get();
    int failed = failures.get();
    CommitBenchmark.log("service traffic during the warm-up: " + sent + (sent == 1 ? " round" : " rounds")
        + " of a metrics scrape, a namespace created, a table declared and described"
        + (failed > 0 ? ", " + failed + " failed" : ""));
  }
}
