package dev.lancecommit.coordinator.credentials;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.util.Base64;
import java.util.function.Consumer;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/** Edits SeaweedFS session tokens (HS256 JWTs) to prove the store checks their signature and expiry. */
final class SessionTokens {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final Base64.Encoder ENCODER = Base64.getUrlEncoder().withoutPadding();
  private static final Base64.Decoder DECODER = Base64.getUrlDecoder();

  private SessionTokens() {}

  static ObjectNode claims(String token) {
    try {
      return (ObjectNode) JSON.readTree(DECODER.decode(token.split("\\.")[1]));
    } catch (java.io.IOException e) {
      throw new IllegalStateException("not a JWT: " + e.getMessage(), e);
    }
  }

  /** The token with edited claims and its original signature (so the signature no longer matches). */
  static String tampered(String token, Consumer<ObjectNode> edit) {
    String[] parts = token.split("\\.");
    ObjectNode claims = claims(token);
    edit.accept(claims);
    return parts[0] + "." + encode(claims) + "." + parts[2];
  }

  /** The token with edited claims, signed again with {@code key} (HS256), as the store itself would sign it. */
  static String resigned(String token, byte[] key, Consumer<ObjectNode> edit) {
    String[] parts = token.split("\\.");
    ObjectNode claims = claims(token);
    edit.accept(claims);
    String signingInput = parts[0] + "." + encode(claims);
    try {
      Mac mac = Mac.getInstance("HmacSHA256");
      mac.init(new SecretKeySpec(key, "HmacSHA256"));
      return signingInput + "." + ENCODER.encodeToString(mac.doFinal(signingInput.getBytes(StandardCharsets.US_ASCII)));
    } catch (GeneralSecurityException e) {
      throw new IllegalStateException(e);
    }
  }

  private static String encode(ObjectNode claims) {
    try {
      return ENCODER.encodeToString(JSON.writeValueAsBytes(claims));
    } catch (java.io.IOException e) {
      throw new IllegalStateException(e);
    }
  }
}
