package dev.lancecommit.chaos.harness;

import java.io.ByteArrayOutputStream;
import java.io.EOFException;
import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.Locale;

/**
 * Just enough HTTP/1.1 to relay requests and responses between an S3 client and an S3 server unchanged: message
 * heads are parsed into lines, bodies are kept with their framing (Content-Length or chunked, trailers included), so
 * what is forwarded is byte for byte what was received, and signatures stay valid.
 */
final class HttpWire {
  private static final int MAX_HEAD_BYTES = 64 * 1024;
  private static final byte[] CRLF = {'\r', '\n'};

  private HttpWire() {}

  /** A message head: the start line and the header lines, in order. */
  record Head(String startLine, List<String> headers) {

    String header(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      for (String line : headers) {
        if (line.toLowerCase(Locale.ROOT).startsWith(prefix)) {
          return line.substring(prefix.length()).trim();
        }
      }
      return null;
    }

    boolean hasHeader(String name) {
      return header(name) != null;
    }

    Head without(String name) {
      String prefix = name.toLowerCase(Locale.ROOT) + ":";
      return new Head(startLine, headers.stream().filter(h -> !h.toLowerCase(Locale.ROOT).startsWith(prefix)).toList());
    }

    boolean chunked() {
      String te = header("Transfer-Encoding");
      return te != null && te.toLowerCase(Locale.ROOT).contains("chunked");
    }

    long contentLength() {
      String value = header("Content-Length");
      if (value == null) {
        return -1;
      }
      try {
        return Long.parseLong(value);
      } catch (NumberFormatException e) {
        return -1;
      }
    }

    boolean connectionClose() {
      String connection = header("Connection");
      return connection != null && connection.toLowerCase(Locale.ROOT).contains("close");
    }
  }

  /** A request: method and target come from the start line; body is raw (with its framing). */
  record Request(Head head, byte[] body) {
    String method() {
      return head.startLine().split(" ", 3)[0];
    }

    String target() {
      String[] parts = head.startLine().split(" ", 3);
      return parts.length > 1 ? parts[1] : "";
    }
  }

  /** A response; {@code closeDelimited} when its body ran to the end of the connection. */
  record Response(Head head, byte[] body, boolean closeDelimited) {
    int status() {
      String[] parts = head.startLine().split(" ", 3);
      try {
        return Integer.parseInt(parts[1]);
      } catch (RuntimeException e) {
        return -1;
      }
    }
  }

  /**
   * Reads one request. When it asks {@code Expect: 100-continue}, answers {@code 100 Continue} on {@code toClient}
   * before reading the body and drops the header (the server then never sees it).
   *
   * @return the request, or null when the client closed the connection before starting one
   */
  static Request readRequest(InputStream in, OutputStream toClient) throws IOException {
    Head head = readHead(in);
    if (head == null) {
      return null;
    }
    String expect = head.header("Expect");
    if (expect != null && expect.toLowerCase(Locale.ROOT).contains("100-continue")) {
      toClient.write("HTTP/1.1 100 Continue\r\n\r\n".getBytes(StandardCharsets.ISO_8859_1));
      toClient.flush();
      head = head.without("Expect");
    }
    byte[] body;
    if (head.chunked()) {
      body = readChunked(in);
    } else if (head.contentLength() > 0) {
      body = readExactly(in, head.contentLength());
    } else {
      body = new byte[0];
    }
    return new Request(head, body);
  }

  /** Reads one response to a request made with {@code method}; interim 1xx answers are skipped. */
  static Response readResponse(InputStream in, String method) throws IOException {
    while (true) {
      Head head = readHead(in);
      if (head == null) {
        throw new EOFException("the server closed the connection before answering");
      }
      Response probe = new Response(head, new byte[0], false);
      int status = probe.status();
      if (status >= 100 && status < 200) {
        continue;
      }
      if (method.equals("HEAD") || status == 204 || status == 304) {
        return probe;
      }
      if (head.chunked()) {
        return new Response(head, readChunked(in), false);
      }
      long length = head.contentLength();
      if (length >= 0) {
        return new Response(head, readExactly(in, length), false);
      }
      return new Response(head, in.readAllBytes(), true);
    }
  }

  static void write(OutputStream out, Head head, byte[] body) throws IOException {
    StringBuilder text = new StringBuilder(head.startLine()).append("\r\n");
    for (String header : head.headers()) {
      text.append(header).append("\r\n");
    }
    text.append("\r\n");
    out.write(text.toString().getBytes(StandardCharsets.ISO_8859_1));
    out.write(body);
    out.flush();
  }

  /** A complete S3-style XML error answer. */
  static void writeError(OutputStream out, int status, String reason, String code) throws IOException {
    byte[] body = ("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n<Error><Code>" + code + "</Code><Message>Injected by "
        + "the chaos harness S3 fault proxy</Message><RequestId>chaos</RequestId></Error>")
        .getBytes(StandardCharsets.UTF_8);
    Head head = new Head("HTTP/1.1 " + status + " " + reason, List.of(
        "Content-Type: application/xml",
        "Content-Length: " + body.length,
        "x-amz-request-id: chaos"));
    write(out, head, body);
  }

  private static Head readHead(InputStream in) throws IOException {
    String startLine = readLine(in, true);
    if (startLine == null) {
      return null;
    }
    while (startLine.isEmpty()) { // tolerate stray CRLF between messages
      startLine = readLine(in, true);
      if (startLine == null) {
        return null;
      }
    }
    List<String> headers = new ArrayList<>();
    int total = startLine.length();
    while (true) {
      String line = readLine(in, false);
      if (line.isEmpty()) {
        return new Head(startLine, headers);
      }
      total += line.length();
      if (total > MAX_HEAD_BYTES) {
        throw new IOException("message head larger than " + MAX_HEAD_BYTES + " bytes");
      }
      headers.add(line);
    }
  }

  /** A line without its CRLF; null at a clean end of stream when {@code eofAllowed}. */
  private static String readLine(InputStream in, boolean eofAllowed) throws IOException {
    ByteArrayOutputStream line = new ByteArrayOutputStream(128);
    while (true) {
      int b = in.read();
      if (b < 0) {
        if (eofAllowed && line.size() == 0) {
          return null;
        }
        throw new EOFException("connection closed inside a message head");
      }
      if (b == '\n') {
        byte[] bytes = line.toByteArray();
        int length = bytes.length > 0 && bytes[bytes.length - 1] == '\r' ? bytes.length - 1 : bytes.length;
        return new String(bytes, 0, length, StandardCharsets.ISO_8859_1);
      }
      line.write(b);
      if (line.size() > MAX_HEAD_BYTES) {
        throw new IOException("header line longer than " + MAX_HEAD_BYTES + " bytes");
      }
    }
  }

  /** A chunked body as received: every size line, chunk, CRLF, the last chunk and the trailers. */
  private static byte[] readChunked(InputStream in) throws IOException {
    ByteArrayOutputStream raw = new ByteArrayOutputStream();
    while (true) {
      String sizeLine = readLine(in, false);
      raw.write(sizeLine.getBytes(StandardCharsets.ISO_8859_1));
      raw.write(CRLF);
      int semicolon = sizeLine.indexOf(';');
      String hex = (semicolon >= 0 ? sizeLine.substring(0, semicolon) : sizeLine).trim();
      long size;
      try {
        size = Long.parseLong(hex, 16);
      } catch (NumberFormatException e) {
        throw new IOException("bad chunk size line '" + sizeLine + "'");
      }
      if (size == 0) {
        while (true) {
          String trailer = readLine(in, false);
          raw.write(trailer.getBytes(StandardCharsets.ISO_8859_1));
          raw.write(CRLF);
          if (trailer.isEmpty()) {
            return raw.toByteArray();
          }
        }
      }
      raw.write(readExactly(in, size));
      String end = readLine(in, false);
      if (!end.isEmpty()) {
        throw new IOException("chunk not followed by CRLF");
      }
      raw.write(CRLF);
    }
  }

  private static byte[] readExactly(InputStream in, long length) throws IOException {
    if (length > Integer.MAX_VALUE - 16) {
      throw new IOException("body of " + length + " bytes is too large to relay");
    }
    byte[] bytes = in.readNBytes((int) length);
    if (bytes.length != length) {
      throw new EOFException("connection closed after " + bytes.length + " of " + length + " body bytes");
    }
    return bytes;
  }
}
