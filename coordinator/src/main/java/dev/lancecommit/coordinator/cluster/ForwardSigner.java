package dev.lancecommit.coordinator.cluster;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.time.Clock;
import java.time.Duration;
import java.util.Base64;
import java.util.HexFormat;
import java.util.Objects;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Signs and checks requests one instance forwards to another. The caller was authenticated by the instance it
 * reached; the owner takes the principal from the forwarded request only when the signature, an HMAC-SHA256 with the
 * cluster secret over the method, path and query, principal, hop count, remaining wait, sender's generation, sender,
 * timestamp and the body's SHA-256, is valid and recent. Without the secret nobody can claim a principal.
 */
public final class ForwardSigner {
  /** The caller's principal, as the instance it reached authenticated it. */
  public static final String PRINCIPAL = "x-lcc-forwarded-principal";
  /** How many times the request has been forwarded (1 at the first owner). */
  public static final String HOPS = "x-lcc-forward-hops";
  /** What is left, in milliseconds, of the time the request may wait for an owner. */
  public static final String WAIT_MS = "x-lcc-forward-wait-ms";
  /** The generation of the ownership map the sender forwarded by. */
  public static final String GENERATION = "x-lcc-forward-generation";
  /** The sender's advertised URL. */
  public static final String SENDER = "x-lcc-forwarded-by";
  public static final String TIMESTAMP = "x-lcc-forward-timestamp";
  public static final String SIGNATURE = "x-lcc-forward-signature";
  /** On answers relayed from another instance: which instance served the request. */
  public static final String SERVED_BY = "x-lcc-served-by";
  /** Largest difference between the sender's and the receiver's clocks (and the request's age) accepted. */
  static final Duration MAX_SKEW = Duration.ofMinutes(5);
  private static final String ALGORITHM = "HmacSHA256";

  /** What a valid forwarded request says. */
  public record Forwarded(String principal, int hops, long waitMillis, int generation, String sender) {}

  private final SecretKeySpec key;
  private final Clock clock;

  public ForwardSigner(String secret) {
    this(secret, Clock.systemUTC());
  }

  ForwardSigner(String secret, Clock clock) {
    Objects.requireNonNull(secret, "secret");
    if (secret.isEmpty()) {
      throw new IllegalArgumentException("the cluster secret is empty");
    }
    this.key = new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), ALGORITHM);
    this.clock = clock;
  }

  /** The current time for {@link #TIMESTAMP}. */
  public long now() {
    return clock.millis();
  }

  /** The {@link #SIGNATURE} of a request with these fields. */
  public String sign(String method, String uri, Forwarded call, long timestampMillis, byte[] body) {
    Mac mac = mac();
    mac.update(canonical(method, uri, call, timestampMillis, body));
    return Base64.getUrlEncoder().withoutPadding().encodeToString(mac.doFinal());
  }

  /**
   * Checks a forwarded request's headers (null where absent) against its method, path and body.
   *
   * @throws IllegalArgumentException saying what is wrong: missing fields, a stale timestamp or a bad signature
   */
  public Forwarded verify(String method, String uri, byte[] body, String principal, String hops, String waitMs,
      String generation, String sender, String timestamp, String signature) {
    if (principal == null || principal.isBlank() || hops == null || waitMs == null || generation == null
        || sender == null || timestamp == null || signature == null) {
      throw new IllegalArgumentException("a forwarded request must carry " + String.join(", ", PRINCIPAL, HOPS,
          WAIT_MS, GENERATION, SENDER, TIMESTAMP, SIGNATURE));
    }
    Forwarded call;
    long sentAt;
    try {
      call = new Forwarded(principal, Integer.parseInt(hops), Long.parseLong(waitMs), Integer.parseInt(generation),
          sender);
      sentAt = Long.parseLong(timestamp);
    } catch (NumberFormatException e) {
      throw new IllegalArgumentException("malformed forwarding header: " + e.getMessage());
    }
    if (call.hops() < 1 || call.waitMillis() < 0) {
      throw new IllegalArgumentException("malformed forwarding header: hops " + call.hops() + ", wait "
          + call.waitMillis());
    }
    if (Math.abs(now() - sentAt) > MAX_SKEW.toMillis()) {
      throw new IllegalArgumentException("forwarded request timestamp " + sentAt + " is more than "
          + MAX_SKEW.toMinutes() + " minutes from this instance's clock");
    }
    byte[] expected = sign(method, uri, call, sentAt, body).getBytes(StandardCharsets.US_ASCII);
    if (!MessageDigest.isEqual(expected, signature.getBytes(StandardCharsets.US_ASCII))) {
      throw new IllegalArgumentException("forwarded request signature does not match (another cluster.secret?)");
    }
    return call;
  }

  private static byte[] canonical(String method, String uri, Forwarded call, long timestampMillis, byte[] body) {
    String text = String.join("\n", "lcc-forward-v1", method, uri, call.principal(),
        Integer.toString(call.hops()), Long.toString(call.waitMillis()), Integer.toString(call.generation()),
        call.sender(), Long.toString(timestampMillis), HexFormat.of().formatHex(sha256(body)));
    return text.getBytes(StandardCharsets.UTF_8);
  }

  private Mac mac() {
    try {
      Mac mac = Mac.getInstance(ALGORITHM);
      mac.init(key);
      return mac;
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("HmacSHA256 is not available", e);
    }
  }

  private static byte[] sha256(byte[] body) {
    try {
      return MessageDigest.getInstance("SHA-256").digest(body == null ? new byte[0] : body);
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException("SHA-256 is not available", e);
    }
  }
}
