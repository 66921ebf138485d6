package dev.lancecommit.coordinator.commit;

import dev.lancecommit.format.pb.Transaction;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

/**
 * What a group commit's recorded transaction says about each member beyond its uuid, so that an event rebuilt from
 * storage (after a crash, or for a resubmission whose first answer was lost) names every member as the live commit
 * did: its actor, trace id, read version, and how many of the group's new fragments are its own (a group's new
 * fragments are its members' in member order, see {@code GroupCommit.merge}).
 *
 * <p>Stored as a JSON array in the transaction property {@value #PROPERTY}, one object per member in the order of
 * the group's member list. Read leniently: a value that is not what this writes is ignored, never fatal, since the
 * version landed whatever its properties say.
 */
final class GroupMemberDetails {
  /** Transaction property of a group commit holding its members' details, in member order. */
  static final String PROPERTY = "lance-commit-coordinator.group-member-details";

  /**
   * One member.
   *
   * @param actor who committed it, null when anonymous
   * @param traceId the trace of its request, null when not traced
   * @param readVersion the read version it was sent with
   * @param newFragments how many of the group's new fragments are its own
   */
  record Detail(String actor, String traceId, long readVersion, int newFragments) {}

  private GroupMemberDetails() {}

  static String encode(List<Detail> details) {
    JsonArray array = new JsonArray();
    for (Detail detail : details) {
      JsonObject member = new JsonObject().put("read_version", detail.readVersion())
          .put("new_fragments", detail.newFragments());
      if (detail.actor() != null) {
        member.put("actor", detail.actor());
      }
      if (detail.traceId() != null) {
        member.put("trace_id", detail.traceId());
      }
      array.add(member);
    }
    return array.encode();
  }

  /** The details {@code recorded} carries for its {@code members} members; empty when absent or unreadable. */
  static Optional<List<Detail>> of(Transaction recorded, int members) {
    String value = recorded.getTransactionPropertiesMap().get(PROPERTY);
    if (value == null || members < 1) {
      return Optional.empty();
    }
    try {
      JsonArray array = new JsonArray(value);
      if (array.size() != members) {
        return Optional.empty();
      }
      List<Detail> details = new ArrayList<>(members);
      for (Object item : array) {
        if (!(item instanceof JsonObject member) || !(member.getValue("read_version") instanceof Number read)
            || !(member.getValue("new_fragments") instanceof Number fragments)
            || !(member.getValue("actor", "") instanceof String actor)
            || !(member.getValue("trace_id", "") instanceof String traceId)
            || read.longValue() < 0 || fragments.intValue() < 0) {
          return Optional.empty();
        }
        details.add(new Detail(actor.isBlank() ? null : actor, traceId.isBlank() ? null : traceId,
            read.longValue(), fragments.intValue()));
      }
      return Optional.of(List.copyOf(details));
    } catch (DecodeException | ClassCastException e) {
      return Optional.empty();
    }
  }
}
