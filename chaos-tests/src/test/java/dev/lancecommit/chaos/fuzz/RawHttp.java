package dev.lancecommit.chaos.fuzz;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.SocketTimeoutException;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * HTTP/1.1 over a plain socket, for requests {@code java.net.http} will not send: any header (Content-Length that
 * lies, Transfer-Encoding, huge values), any path bytes, bodies cut short. Answers the status line's code, or -1 when
 * the server closed the connection without answering (which is fine for a request that never finished).
 */
final class RawHttp {
  private final String host;
  private final int port;

  RawHttp(String baseUrl) {
    URI uri = URI.create(baseUrl);
    this.host = uri.getHost();
    this.port = uri.getPort();
  }

  /**
   * Sends the request line, headers and {@code body}; when {@code closeAfterBody} the connection is closed right
   * after (a body shorter than its Content-Length never completes).
   */
  int send(String method, String rawPath, Map<String, String> headers, byte[] body, boolean closeAfterBody)
      throws IOException {
    try (Socket socket = new Socket()) {
      socket.connect(new InetSocketAddress(host, port), 5_000);
      socket.setSoTimeout(30_000);
      OutputStream out = socket.getOutputStream();
      StringBuilder head = new StringBuilder()
          .append(method).append(' ').append(rawPath).append(" HTTP/1.1\r\n")
          .append("Host: ").append(host).append(':').append(port).append("\r\n");
      headers.forEach((name, value) -> head.append(name).append(": ").append(value).append("\r\n"));
      head.append("\r\n");
      out.write(head.toString().getBytes(StandardCharsets.ISO_8859_1));
      out.write(body);
      out.flush();
      if (closeAfterBody) {
        socket.shutdownOutput();
        socket.setSoTimeout(2_000);
      }
      return readStatus(socket.getInputStream());
    }
  }

  private static int readStatus(InputStream in) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream();
    try {
      int b;
      while ((b = in.read()) >= 0 && b != '\n') {
        line.write(b);
      }
    } catch (SocketTimeoutException | java.net.SocketException e) {
      return -1;
    }
    String status = line.toString(StandardCharsets.ISO_8859_1).trim();
    if (!status.startsWith("HTTP/")) {
      return -1;
    }
    String[] parts = status.split(" ");
    return parts.length > 1 ? Integer.parseInt(parts[1]) : -1;
  }
}
