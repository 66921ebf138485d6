package dev.lancecommit.coordinator.refs;

import com.fasterxml.jackson.databind.node.ObjectNode;
import java.time.Instant;
import java.util.Optional;

/**
 * One tag file, {@code {root}/_refs/tags/{tag}.json}, as Lance writes it ({@code TagContents} in
 * {@code rust/lance/src/dataset/refs.rs}, serde camelCase):
 * <pre>{
 *   "branch": null,
 *   "version": 3,
 *   "createdAt": "2026-12-01T15:25:01.736562167Z",
 *   "updatedAt": "2026-12-01T15:25:01.741597540Z",
 *   "manifestSize": 542,
 *   "metadata": {}
 * }</pre>
 * {@code branch} null is the main branch; {@code manifestSize} is the size of the tagged version's manifest. Fields
 * this build does not know are kept.
 */
public final class TagContents {
  private final ObjectNode json;

  private TagContents(ObjectNode json) {
    this.json = json;
  }

  /** A new tag on {@code branch} (null: main), created and updated at {@code now}. */
  public static TagContents of(String branch, long version, long manifestSize, Instant now) {
    ObjectNode json = RefJson.object();
    if (branch == null) {
      json.putNull("branch");
    } else {
      json.put("branch", branch);
    }
    json.put("version", version);
    json.put("createdAt", now.toString());
    json.put("updatedAt", now.toString());
    json.put("manifestSize", manifestSize);
    json.putObject("metadata");
    return new TagContents(json);
  }

  static TagContents parse(byte[] bytes, String what) {
    TagContents tag = new TagContents(RefJson.parse(bytes, what));
    RefJson.requiredLong(tag.json, "version", what);
    RefJson.requiredLong(tag.json, "manifestSize", what);
    RefJson.optionalText(tag.json, "branch", what);
    return tag;
  }

  /** The tag moved to another version: Lance's {@code Tags::update} keeps createdAt and the metadata. */
  public TagContents movedTo(String branch, long version, long manifestSize, Instant now) {
    ObjectNode moved = json.deepCopy();
    if (branch == null) {
      moved.putNull("branch");
    } else {
      moved.put("branch", branch);
    }
    moved.put("version", version);
    moved.put("updatedAt", now.toString());
    moved.put("manifestSize", manifestSize);
    return new TagContents(moved);
  }

  /** The branch of the tagged version; empty for main. */
  public Optional<String> branch() {
    return Optional.ofNullable(RefJson.optionalText(json, "branch", "tag"));
  }

  public long version() {
    return json.get("version").longValue();
  }

  public long manifestSize() {
    return json.get("manifestSize").longValue();
  }

  byte[] toBytes() {
    return RefJson.write(json);
  }
}
