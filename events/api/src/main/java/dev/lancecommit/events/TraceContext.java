package dev.lancecommit.events;

import java.util.Objects;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The W3C trace context an event carries: {@code traceparent} and {@code tracestate}, exactly as the CloudEvents
 * distributed-tracing extension names them. It is the trace of the request that caused the event, so a consumer
 * continues that trace.
 *
 * @param traceParent {@code version-traceid-parentid-flags}, e.g. {@code 00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01}
 * @param traceState vendor entries ({@code k=v,...}), or null
 */
public record TraceContext(String traceParent, String traceState) {
  private static final Pattern TRACE_PARENT =
      Pattern.compile("([0-9a-f]{2})-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})(-.*)?");
  private static final String ZERO_TRACE = "0".repeat(32);
  private static final String ZERO_SPAN = "0".repeat(16);

  public TraceContext {
    Objects.requireNonNull(traceParent, "traceParent");
    if (!isValid(traceParent)) {
      throw new IllegalArgumentException("traceParent is not a W3C traceparent: '" + traceParent + "'");
    }
    if (traceState != null && traceState.isBlank()) {
      traceState = null;
    }
  }

  /** A trace context from a traceparent and an optional tracestate. */
  public static TraceContext of(String traceParent, String traceState) {
    return new TraceContext(traceParent, traceState);
  }

  /**
   * The context named by the two values as they were received, or empty when the traceparent is absent or
   * malformed: a bad trace header never makes an event unreadable, it only loses its trace.
   */
  public static Optional<TraceContext> parse(String traceParent, String traceState) {
    if (traceParent == null || !isValid(traceParent.trim())) {
      return Optional.empty();
    }
    return Optional.of(new TraceContext(traceParent.trim(), traceState));
  }

  /** Whether {@code value} is a traceparent this version of the W3C recommendation accepts. */
  public static boolean isValid(String value) {
    if (value == null) {
      return false;
    }
    var m = TRACE_PARENT.matcher(value);
    if (!m.matches()) {
      return false;
    }
    String version = m.group(1);
    if (version.equals("ff") || version.equals("00") && m.group(5) != null) {
      return false;
    }
    return !m.group(2).equals(ZERO_TRACE) && !m.group(3).equals(ZERO_SPAN);
  }

  /** The 32 hex digits of the trace id. */
  public String traceId() {
    return traceParent.substring(3, 35);
  }

  /** The 16 hex digits of the span the event was made in. */
  public String spanId() {
    return traceParent.substring(36, 52);
  }
}
