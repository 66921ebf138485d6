package dev.lancecommit.coordinator.credentials;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.JsonNodeFactory;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.List;

/**
 * The inline session policy that narrows an assumed role to one table (a pure function of location and mode).
 *
 * <p>For {@code s3://bucket/prefix/t.lance}:
 * <ul>
 *   <li>both modes: {@code s3:GetObject} on {@code prefix/t.lance/*}, and {@code s3:ListBucket} on the bucket when
 *       the listed {@code s3:prefix} is {@code prefix/t.lance/} or below it. The bare {@code prefix/t.lance} is
 *       deliberately not listable: it would also list a sibling such as {@code prefix/t.lance2/}, and Lance always
 *       lists with a trailing slash;</li>
 *   <li>{@link AccessMode#READ_WRITE} adds {@code s3:PutObject}, {@code s3:DeleteObject} and
 *       {@code s3:AbortMultipartUpload} on {@code data/}, {@code _deletions/}, {@code _indices/},
 *       {@code _transactions/} and {@code _versions/}, and on {@code tree/} (Lance branches, each a dataset with the
 *       same directories), and an explicit Deny of {@code s3:PutObject} and {@code s3:DeleteObject} on the final
 *       manifest names {@code _versions/*.manifest} and {@code tree/*}{@code /_versions/*.manifest} (branches), and
 *       on {@code _refs/*} (tags and branches: a tag keeps a version from being deleted, a branch file makes a
 *       branch exist, so both are the coordinator's to write). A stock Lance client using namespace-managed
 *       versioning stages {@code _versions/{name}-{uuid}}, which does not end in {@code .manifest}, so staging is
 *       allowed while publishing a version stays the coordinator's job.</li>
 * </ul>
 * An explicit Deny wins over every Allow in IAM evaluation, so the manifest rule holds whatever the role allows.
 */
public final class SessionPolicies {
  /** AWS's limit on the plain text of an inline session policy. */
  public static final int MAX_POLICY_LENGTH = 2048;

  static final List<String> WRITABLE_DIRECTORIES =
      List.of("data", "_deletions", "_indices", "_transactions", "_versions", "tree");
  /** What only the coordinator writes: versions (also of branches) and refs. */
  static final List<String> DENIED_PATTERNS =
      List.of("/_versions/*.manifest", "/tree/*/_versions/*.manifest", "/_refs/*");

  private static final ObjectMapper JSON = new ObjectMapper();
  private static final JsonNodeFactory NODES = JsonNodeFactory.instance;

  private SessionPolicies() {}

  /** The policy for a table location string; refuses what {@link S3TableLocation#parse} refuses. */
  public static String forTable(String tableLocation, AccessMode mode) {
    return forTable(S3TableLocation.parse(tableLocation), mode);
  }

  /** The policy as compact JSON. */
  public static String forTable(S3TableLocation location, AccessMode mode) {
    ObjectNode policy = NODES.objectNode().put("Version", "2012-10-17");
    ArrayNode statements = policy.putArray("Statement");
    statements.add(statement("ReadTable", "Allow", List.of("s3:GetObject"), List.of(location.objectArn("/*"))));
    ObjectNode list = statement("ListTable", "Allow", List.of("s3:ListBucket"), List.of(location.bucketArn()));
    list.putObject("Condition").putObject("StringLike")
        .set("s3:prefix", strings(List.of(location.keyPrefix() + "/", location.keyPrefix() + "/*")));
    statements.add(list);
    if (mode == AccessMode.READ_WRITE) {
      statements.add(statement("WriteTableFiles", "Allow",
          List.of("s3:PutObject", "s3:DeleteObject", "s3:AbortMultipartUpload"),
          WRITABLE_DIRECTORIES.stream().map(dir -> location.objectArn("/" + dir + "/*")).toList()));
      statements.add(statement("DenyManifestWrites", "Deny",
          List.of("s3:PutObject", "s3:DeleteObject"),
          DENIED_PATTERNS.stream().map(location::objectArn).toList()));
    }
    String text = write(policy);
    if (text.length() > MAX_POLICY_LENGTH) {
      throw new InvalidTableLocationException("Table location is too long to scope credentials to: its session "
          + "policy has " + text.length() + " characters, the limit is " + MAX_POLICY_LENGTH + " ('"
          + location.uri() + "')");
    }
    return text;
  }

  private static ObjectNode statement(String sid, String effect, List<String> actions, List<String> resources) {
    ObjectNode statement = NODES.objectNode().put("Sid", sid).put("Effect", effect);
    statement.set("Action", strings(actions));
    statement.set("Resource", strings(resources));
    return statement;
  }

  private static ArrayNode strings(List<String> values) {
    ArrayNode array = NODES.arrayNode();
    values.forEach(array::add);
    return array;
  }

  private static String write(ObjectNode policy) {
    try {
      return JSON.writeValueAsString(policy);
    } catch (com.fasterxml.jackson.core.JsonProcessingException e) {
      throw new IllegalStateException("cannot serialise a session policy", e);
    }
  }
}
