package dev.lancecommit.coordinator.namespace;

import dev.lancecommit.coordinator.table.TableRef;
import java.time.Instant;
import java.util.List;
import java.util.Map;

/**
 * A catalogued table.
 *
 * @param id namespace parts followed by the table name
 * @param location the dataset root URI, as the store spells it ({@code ObjectStore.uriOf})
 * @param tableUuid stable uuid given at declare/register time; commit event ids are {@code tableUuid:version}
 * @param state whether the table was declared (no data required) or registered over an existing dataset
 */
public record TableEntry(
    List<String> id, String location, String tableUuid, State state, Map<String, String> properties,
    Instant createdAt) {

  public enum State {
    DECLARED("declared"),
    REGISTERED("registered");

    private final String wireName;

    State(String wireName) {
      this.wireName = wireName;
    }

    public String wireName() {
      return wireName;
    }

    public static State fromWireName(String name) {
      for (State state : values()) {
        if (state.wireName.equals(name)) {
          return state;
        }
      }
      throw new IllegalArgumentException("Unknown table state '" + name + "'");
    }
  }

  public TableEntry {
    id = List.copyOf(id);
    properties = Map.copyOf(properties);
    if (id.isEmpty()) {
      throw new IllegalArgumentException("A table id needs at least a name");
    }
  }

  public String name() {
    return id.get(id.size() - 1);
  }

  public List<String> namespace() {
    return id.subList(0, id.size() - 1);
  }

  public TableRef toRef() {
    return new TableRef(id, location, tableUuid);
  }
}
