package dev.lancecommit.coordinator.credentials;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

class SessionPoliciesTest {
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final String TABLE = "s3://bucket/prefix/t.lance";
  private static final String ROOT = "arn:aws:s3:::bucket/prefix/t.lance";

  @Test
  void readWritePolicyHasTheExactStatements() throws Exception {
    JsonNode policy = JSON.readTree(SessionPolicies.forTable(TABLE, AccessMode.READ_WRITE));

    assertThat(policy.get("Version").asText()).isEqualTo("2012-10-17");
    assertThat(policy.get("Statement")).hasSize(4);
    JsonNode read = statement(policy, "ReadTable");
    assertThat(read.get("Effect").asText()).isEqualTo("Allow");
    assertThat(strings(read.get("Action"))).containsExactly("s3:GetObject");
    assertThat(strings(read.get("Resource"))).containsExactly(ROOT + "/*");

    JsonNode list = statement(policy, "ListTable");
    assertThat(list.get("Effect").asText()).isEqualTo("Allow");
    assertThat(strings(list.get("Action"))).containsExactly("s3:ListBucket");
    assertThat(strings(list.get("Resource"))).containsExactly("arn:aws:s3:::bucket");
    assertThat(strings(list.get("Condition").get("StringLike").get("s3:prefix")))
        .containsExactly("prefix/t.lance/", "prefix/t.lance/*");

    JsonNode write = statement(policy, "WriteTableFiles");
    assertThat(write.get("Effect").asText()).isEqualTo("Allow");
    assertThat(strings(write.get("Action")))
        .containsExactly("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload");
    assertThat(strings(write.get("Resource"))).containsExactly(
        ROOT + "/data/*", ROOT + "/_deletions/*", ROOT + "/_indices/*", ROOT + "/_transactions/*",
        ROOT + "/_versions/*", ROOT + "/tree/*");

    JsonNode deny = statement(policy, "DenyManifestWrites");
    assertThat(deny.get("Effect").asText()).isEqualTo("Deny");
    assertThat(strings(deny.get("Action"))).containsExactly("s3:PutObject", "s3:DeleteObject");
    assertThat(strings(deny.get("Resource")))
        .containsExactly(ROOT + "/_versions/*.manifest", ROOT + "/tree/*/_versions/*.manifest", ROOT + "/_refs/*");
  }

  @Test
  void readPolicyGrantsNoWriteAction() throws Exception {
    String text = SessionPolicies.forTable(TABLE, AccessMode.READ);
    JsonNode policy = JSON.readTree(text);

    assertThat(policy.get("Statement")).hasSize(2);
    assertThat(statement(policy, "ReadTable")).isNotNull();
    assertThat(statement(policy, "ListTable")).isNotNull();
    assertThat(text).doesNotContain("s3:PutObject").doesNotContain("s3:DeleteObject");
  }

  /** The policy evaluated with IAM's rules (explicit Deny wins, no Allow means denied) on concrete keys. */
  @Test
  void readWritePolicyAllowsStagingButNotPublishing() throws Exception {
    JsonNode policy = JSON.readTree(SessionPolicies.forTable(TABLE, AccessMode.READ_WRITE));
    String key = "arn:aws:s3:::bucket/prefix/t.lance/";

    assertThat(allowed(policy, "s3:PutObject", key + "data/x.lance")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "_versions/1.manifest-5f0c1d8e")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "_transactions/0-5f0c1d8e.txn")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "_deletions/0-1-2.arrow")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "_indices/abc/index.idx")).isTrue();
    assertThat(allowed(policy, "s3:GetObject", key + "_versions/1.manifest")).isTrue();

    assertThat(allowed(policy, "s3:PutObject", key + "_versions/18446744073709551614.manifest")).isFalse();
    assertThat(allowed(policy, "s3:PutObject", key + "_versions/1.manifest")).isFalse();
    assertThat(allowed(policy, "s3:DeleteObject", key + "_versions/1.manifest")).isFalse();
    assertThat(allowed(policy, "s3:PutObject", key + "tree/b1/_versions/1.manifest")).isFalse();
    assertThat(allowed(policy, "s3:PutObject", key + "tree/a/b/_versions/2.manifest")).isFalse();
    // a branch's data and staged manifests are the writer's; tags and branch files are the coordinator's
    assertThat(allowed(policy, "s3:PutObject", key + "tree/b1/data/x.lance")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "tree/b1/_versions/3.manifest-5f0c1d8e")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "_refs/tags/v1.json")).isFalse();
    assertThat(allowed(policy, "s3:PutObject", key + "_refs/branches/b1.json")).isFalse();
    assertThat(allowed(policy, "s3:DeleteObject", key + "_refs/tags/v1.json")).isFalse();
    assertThat(allowed(policy, "s3:GetObject", key + "_refs/tags/v1.json")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", key + "other/x")).isFalse();
    assertThat(allowed(policy, "s3:PutObject", "arn:aws:s3:::bucket/prefix/t.lance2/data/x.lance")).isFalse();
    assertThat(allowed(policy, "s3:GetObject", "arn:aws:s3:::bucket/prefix/u.lance/data/x.lance")).isFalse();
    assertThat(allowed(policy, "s3:GetObject", "arn:aws:s3:::bucket2/prefix/t.lance/data/x.lance")).isFalse();
  }

  @Test
  void readPolicyDeniesEveryWrite() throws Exception {
    JsonNode policy = JSON.readTree(SessionPolicies.forTable(TABLE, AccessMode.READ));

    assertThat(allowed(policy, "s3:GetObject", ROOT + "/data/x.lance")).isTrue();
    assertThat(allowed(policy, "s3:PutObject", ROOT + "/data/x.lance")).isFalse();
    assertThat(allowed(policy, "s3:DeleteObject", ROOT + "/data/x.lance")).isFalse();
  }

  @Test
  void listingIsLimitedToTheTablePrefix() throws Exception {
    JsonNode list = statement(JSON.readTree(SessionPolicies.forTable(TABLE, AccessMode.READ)), "ListTable");
    List<String> patterns = strings(list.get("Condition").get("StringLike").get("s3:prefix"));

    assertThat(matchesAny(patterns, "prefix/t.lance/")).isTrue();
    assertThat(matchesAny(patterns, "prefix/t.lance/_versions/")).isTrue();
    assertThat(matchesAny(patterns, "prefix/t.lance")).isFalse();
    assertThat(matchesAny(patterns, "prefix/t.lance2/")).isFalse();
    assertThat(matchesAny(patterns, "prefix/")).isFalse();
    assertThat(matchesAny(patterns, "")).isFalse();
  }

  @Test
  void sameInputGivesTheSameText() {
    assertThat(SessionPolicies.forTable(TABLE, AccessMode.READ_WRITE))
        .isEqualTo(SessionPolicies.forTable(TABLE + "/", AccessMode.READ_WRITE));
  }

  @Test
  void refusesLocationsItCannotScope() {
    assertThatThrownBy(() -> SessionPolicies.forTable("s3://bucket/prefix/*.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("wildcard");
    assertThatThrownBy(() -> SessionPolicies.forTable("s3://bucket/prefix/t?.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("wildcard");
    assertThatThrownBy(() -> SessionPolicies.forTable("file:///tmp/t.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("s3://");
    assertThatThrownBy(() -> SessionPolicies.forTable("gs://bucket/t.lance", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("s3://");
    assertThatThrownBy(() -> SessionPolicies.forTable("s3://bucket", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("whole bucket");
    assertThatThrownBy(() -> SessionPolicies.forTable("s3://bucket/", AccessMode.READ))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("whole bucket");
  }

  @Test
  void refusesALocationWhosePolicyWouldExceedTheLimit() {
    String longPrefix = "p/".repeat(120) + "t.lance";
    assertThatThrownBy(() -> SessionPolicies.forTable("s3://bucket/" + longPrefix, AccessMode.READ_WRITE))
        .isInstanceOf(InvalidTableLocationException.class).hasMessageContaining("2048");
    assertThat(SessionPolicies.forTable("s3://bucket/" + longPrefix, AccessMode.READ).length())
        .isLessThanOrEqualTo(SessionPolicies.MAX_POLICY_LENGTH);
  }

  private static JsonNode statement(JsonNode policy, String sid) {
    for (JsonNode statement : policy.get("Statement")) {
      if (statement.get("Sid").asText().equals(sid)) {
        return statement;
      }
    }
    throw new AssertionError("no statement " + sid + " in " + policy);
  }

  private static List<String> strings(JsonNode array) {
    List<String> out = new ArrayList<>();
    array.forEach(node -> out.add(node.asText()));
    return out;
  }

  /** IAM evaluation of one policy for an object action (conditions are only on ListBucket, so ignored here). */
  private static boolean allowed(JsonNode policy, String action, String resource) {
    boolean allow = false;
    for (JsonNode statement : policy.get("Statement")) {
      boolean matches = strings(statement.get("Action")).contains(action)
          && matchesAny(strings(statement.get("Resource")), resource);
      if (matches && statement.get("Effect").asText().equals("Deny")) {
        return false;
      }
      allow |= matches;
    }
    return allow;
  }

  /** IAM wildcards: '*' any run of characters (slashes included), '?' one character. */
  private static boolean matchesAny(List<String> patterns, String value) {
    for (String pattern : patterns) {
      StringBuilder regex = new StringBuilder();
      for (char c : pattern.toCharArray()) {
        regex.append(c == '*' ? ".*" : c == '?' ? "." : Pattern.quote(String.valueOf(c)));
      }
      if (value.matches(regex.toString())) {
        return true;
      }
    }
    return false;
  }
}
