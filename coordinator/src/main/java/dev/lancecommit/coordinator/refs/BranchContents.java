package dev.lancecommit.coordinator.refs;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;

/**
 * One branch file, {@code {root}/_refs/branches/{name}.json} ('/' in the name written as {@code %2F}), as Lance 7
 * writes it ({@code BranchContents} in {@code rust/lance/src/dataset/refs.rs}, serde camelCase):
 * <pre>{
 *   "parentBranch": null,
 *   "identifier": {
 *     "version_mapping": [
 *       [
 *         2,
 *         "36b0836e71dd402391d983daaa32f125"
 *       ]
 *     ]
 *   },
 *   "parentVersion": 2,
 *   "createAt": 1796138701,
 *   "manifestSize": 461,
 *   "metadata": {}
 * }</pre>
 * {@code parentBranch} null is main; {@code parentVersion} the version of the parent it was made from, whose
 * manifest size {@code manifestSize} is; {@code createAt} unix seconds. The identifier is the parent's
 * {@code version_mapping} plus one entry {@code [parentVersion, uuid without dashes]}: Lance uses it to find the
 * branches made from a branch. Fields this build does not know are kept.
 */
public final class BranchContents {
  private final ObjectNode json;

  private BranchContents(ObjectNode json) {
    this.json = json;
  }

  /**
   * A branch made from {@code parentVersion} of {@code parent} (null: main) whose own identifier is
   * {@code parentIdentifier} (empty for main).
   */
  public static BranchContents of(String parent, List<Mapping> parentIdentifier, long parentVersion,
      long manifestSize, long createdAtSeconds, UUID id) {
    ObjectNode json = RefJson.object();
    if (parent == null) {
      json.putNull("parentBranch");
    } else {
      json.put("parentBranch", parent);
    }
    ArrayNode mapping = json.putObject("identifier").putArray("version_mapping");
    List<Mapping> identifier = new ArrayList<>(parentIdentifier);
    identifier.add(new Mapping(parentVersion, id.toString().replace("-", "")));
    for (Mapping entry : identifier) {
      mapping.addArray().add(entry.version()).add(entry.uuid());
    }
    json.put("parentVersion", parentVersion);
    json.put("createAt", createdAtSeconds);
    json.put("manifestSize", manifestSize);
    json.putObject("metadata");
    return new BranchContents(json);
  }

  static BranchContents parse(byte[] bytes, String what) {
    BranchContents branch = new BranchContents(RefJson.parse(bytes, what));
    RefJson.requiredLong(branch.json, "parentVersion", what);
    RefJson.requiredLong(branch.json, "createAt", what);
    RefJson.requiredLong(branch.json, "manifestSize", what);
    RefJson.optionalText(branch.json, "parentBranch", what);
    return branch;
  }

  /** One step of a branch's lineage: made at {@code version} of its parent, with a fresh uuid. */
  public record Mapping(long version, String uuid) {}

  public Optional<String> parentBranch() {
    return Optional.ofNullable(RefJson.optionalText(json, "parentBranch", "branch"));
  }

  public long parentVersion() {
    return json.get("parentVersion").longValue();
  }

  public long createAt() {
    return json.get("createAt").longValue();
  }

  public long manifestSize() {
    return json.get("manifestSize").longValue();
  }

  /** The lineage Lance records; empty when the file has none (branches written before Lance 7). */
  public List<Mapping> identifier() {
    JsonNode mapping = json.path("identifier").path("version_mapping");
    List<Mapping> out = new ArrayList<>();
    if (mapping.isArray()) {
      for (JsonNode entry : mapping) {
        if (entry.isArray() && entry.size() == 2 && entry.get(0).canConvertToLong() && entry.get(1).isTextual()) {
          out.add(new Mapping(entry.get(0).longValue(), entry.get(1).asText()));
        }
      }
    }
    return List.copyOf(out);
  }

  /** The branch's metadata (string values only). */
  public Map<String, String> metadata() {
    Map<String, String> out = new LinkedHashMap<>();
    JsonNode metadata = json.path("metadata");
    for (Iterator<Map.Entry<String, JsonNode>> it = metadata.fields(); it.hasNext(); ) {
      Map.Entry<String, JsonNode> entry = it.next();
      if (entry.getValue().isTextual()) {
        out.put(entry.getKey(), entry.getValue().asText());
      }
    }
    return out;
  }

  byte[] toBytes() {
    return RefJson.write(json);
  }
}
