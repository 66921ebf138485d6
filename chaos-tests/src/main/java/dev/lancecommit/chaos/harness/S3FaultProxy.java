package dev.lancecommit.chaos.harness;

import java.io.BufferedInputStream;
import java.io.BufferedOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketException;
import java.util.Random;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A loopback HTTP/1.1 reverse proxy in front of an S3 server that injects faults while {@link S3Faults} are set:
 * 5xx answers (nothing forwarded), added latency, stalls past the client's timeout (forwarded anyway, later), and
 * for create-only writes ({@code PUT} with {@code If-None-Match}) a reset connection in place of the success answer.
 *
 * <p>Requests are relayed byte for byte (the Host header included), so AWS signatures made for the proxy's address
 * stay valid. One thread per client connection and one upstream connection per client connection; no pipelining.
 */
public final class S3FaultProxy implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(S3FaultProxy.class);
  private static final int UPSTREAM_TIMEOUT_MS = 120_000;
  private static final long UPSTREAM_IDLE_REUSE_NANOS = TimeUnit.SECONDS.toNanos(4);

  private final String upstreamHost;
  private final int upstreamPort;
  private final Random random;
  private final FaultLog log;
  private final ExecutorService threads;
  private final Set<Socket> open = ConcurrentHashMap.newKeySet();
  private volatile S3Faults faults = S3Faults.NONE;
  private volatile long fixedLatencyMillis;
  private volatile boolean closed;
  private ServerSocket server;

  public S3FaultProxy(String upstreamHost, int upstreamPort, long seed, FaultLog log) {
    this.upstreamHost = upstreamHost;
    this.upstreamPort = upstreamPort;
    this.random = new Random(seed);
    this.log = log;
    AtomicInteger counter = new AtomicInteger();
    this.threads = Executors.newCachedThreadPool(r -> {
      Thread t = new Thread(r, "s3-fault-proxy-" + counter.incrementAndGet());
      t.setDaemon(true);
      return t;
    });
  }

  /** Binds a free loopback port and starts accepting; returns the port. */
  public synchronized int start() throws IOException {
    server = new ServerSocket();
    server.setReuseAddress(true);
    server.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0), 200);
    threads.execute(this::acceptLoop);
    return server.getLocalPort();
  }

  public int port() {
    return server.getLocalPort();
  }

  public String endpoint() {
    return "http://127.0.0.1:" + port();
  }

  public void setFaults(S3Faults value) {
    faults = value;
  }

  public S3Faults faults() {
    return faults;
  }

  /** Holds every request this long before forwarding it (a store farther away than loopback); 0 turns it off. */
  public void setFixedLatency(long millis) {
    if (millis < 0) {
      throw new IllegalArgumentException("latency must not be negative");
    }
    fixedLatencyMillis = millis;
  }

  private void acceptLoop() {
    while (!closed) {
      try {
        Socket client = server.accept();
        client.setTcpNoDelay(true);
        open.add(client);
        threads.execute(() -> serve(client));
      } catch (IOException e) {
        if (!closed) {
          LOG.warn("fault proxy accept failed: {}", e.toString());
        }
      }
    }
  }

  private void serve(Socket client) {
    Upstream upstream = new Upstream();
    try {
      InputStream in = new BufferedInputStream(client.getInputStream());
      OutputStream out = new BufferedOutputStream(client.getOutputStream());
      while (!closed) {
        HttpWire.Request request = HttpWire.readRequest(in, out);
        if (request == null) {
          return;
        }
        if (!relay(request, client, out, upstream)) {
          return;
        }
      }
    } catch (IOException e) {
      LOG.debug("fault proxy connection ended: {}", e.toString());
    } finally {
      upstream.close();
      closeQuietly(client);
    }
  }

  /** Handles one request; false when the client connection must be closed. */
  private boolean relay(HttpWire.Request request, Socket client, OutputStream out, Upstream upstream)
      throws IOException {
    S3Faults now = faults;
    Decision decision = decide(now, request);
    if (decision.error) {
      log.count(FaultLog.S3_5XX);
      if (decision.errorStatus == 503) {
        HttpWire.writeError(out, 503, "Slow Down", "SlowDown");
      } else {
        HttpWire.writeError(out, 500, "Internal Server Error", "InternalError");
      }
      return !request.head().connectionClose();
    }
    if (decision.delayMillis > 0) {
      log.count(decision.stall ? FaultLog.S3_STALL : FaultLog.S3_LATENCY);
      sleep(decision.delayMillis);
    }
    if (fixedLatencyMillis > 0) {
      sleep(fixedLatencyMillis);
    }
    HttpWire.Response response = upstream.exchange(request);
    if (decision.dropAfterWrite && response.status() >= 200 && response.status() < 300) {
      log.count(FaultLog.S3_DROP_AFTER_WRITE);
      reset(client);
      return false;
    }
    HttpWire.write(out, response.head(), response.body());
    if (response.closeDelimited() || response.head().connectionClose()) {
      upstream.close();
      return false;
    }
    return !request.head().connectionClose();
  }

  private record Decision(boolean error, int errorStatus, long delayMillis, boolean stall, boolean dropAfterWrite) {}

  private Decision decide(S3Faults now, HttpWire.Request request) {
    if (!now.active()) {
      return new Decision(false, 0, 0, false, false);
    }
    synchronized (random) {
      if (random.nextDouble() < now.errorRate()) {
        return new Decision(true, random.nextBoolean() ? 503 : 500, 0, false, false);
      }
      long delay = 0;
      boolean stall = false;
      if (random.nextDouble() < now.stallRate()) {
        delay = now.stallMillis();
        stall = true;
      } else if (now.maxLatencyMillis() > 0 && random.nextDouble() < now.latencyRate()) {
        delay = 1 + (long) (random.nextDouble() * now.maxLatencyMillis());
      }
      boolean conditionalPut = request.method().equals("PUT") && request.head().hasHeader("If-None-Match");
      boolean drop = conditionalPut && random.nextDouble() < now.dropAfterWriteRate();
      return new Decision(false, 0, delay, stall, drop);
    }
  }

  /** The upstream connection of one client connection, opened lazily and reopened when it went stale. */
  private final class Upstream {
    private Socket socket;
    private InputStream in;
    private OutputStream out;
    private long lastUsed;

    HttpWire.Response exchange(HttpWire.Request request) throws IOException {
      if (socket != null && System.nanoTime() - lastUsed > UPSTREAM_IDLE_REUSE_NANOS) {
        close(); // the server may have timed it out; a fresh one avoids a spurious failure we did not inject
      }
      if (socket == null) {
        socket = new Socket();
        socket.setTcpNoDelay(true);
        socket.connect(new InetSocketAddress(upstreamHost, upstreamPort), 10_000);
        socket.setSoTimeout(UPSTREAM_TIMEOUT_MS);
        open.add(socket);
        in = new BufferedInputStream(socket.getInputStream());
        out = new BufferedOutputStream(socket.getOutputStream());
      }
      try {
        HttpWire.write(out, request.head(), request.body());
        HttpWire.Response response = HttpWire.readResponse(in, request.method());
        lastUsed = System.nanoTime();
        return response;
      } catch (IOException e) {
        close();
        throw e;
      }
    }

    void close() {
      if (socket != null) {
        closeQuietly(socket);
        socket = null;
        in = null;
        out = null;
      }
    }
  }

  private void reset(Socket socket) {
    try {
      socket.setSoLinger(true, 0); // RST instead of FIN: the client sees a broken connection, not a clean close
    } catch (SocketException e) {
      // closing anyway
    }
    closeQuietly(socket);
  }

  private void closeQuietly(Socket socket) {
    open.remove(socket);
    try {
      socket.close();
    } catch (IOException e) {
      // nothing to do
    }
  }

  private static void sleep(long millis) throws IOException {
    try {
      Thread.sleep(millis);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public void close() {
    closed = true;
    faults = S3Faults.NONE;
    try {
      if (server != null) {
        server.close();
      }
    } catch (IOException e) {
      // closing
    }
    for (Socket socket : open) {
      closeQuietly(socket);
    }
    threads.shutdownNow();
  }
}
