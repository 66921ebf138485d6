package dev.lancecommit.coordinator.config;

import java.util.ArrayList;
import java.util.Collection;
import java.util.Collections;
import java.util.List;

/**
 * An ordered group of documented configuration keys (the coordinator's own, or one feature's such as
 * {@code credentials.*}); every key of the coordinator ends up in {@code CoordinatorConfig.keys()}.
 */
public final class ConfigKeys {
  /** A documented configuration key. */
  public record Key(String name, String defaultValue, String doc) {}

  private final List<Key> keys = new ArrayList<>();

  /** Declares a key of this group. */
  public Key key(String name, String defaultValue, String doc) {
    Key key = new Key(name, defaultValue, doc);
    keys.add(key);
    return key;
  }

  /** Adds another group's keys (the coordinator collects every feature's). */
  public void addAll(Collection<Key> more) {
    keys.addAll(more);
  }

  public List<Key> all() {
    return Collections.unmodifiableList(keys);
  }

  /** Refuses any name that is not a key of this group. */
  public void requireKnown(Collection<String> names) {
    for (String name : names) {
      if (keys.stream().noneMatch(k -> k.name().equals(name))) {
        throw new IllegalArgumentException("Unknown configuration key '" + name + "'. Known keys: "
            + keys.stream().map(Key::name).toList());
      }
    }
  }

  /** The keys as a markdown table, for the documentation and {@code --help}. */
  public String documentation() {
    StringBuilder out = new StringBuilder("| key | default | meaning |\n|---|---|---|\n");
    for (Key key : keys) {
      out.append("| `").append(key.name()).append("` | `").append(key.defaultValue()).append("` | ")
          .append(key.doc()).append(" |\n");
    }
    return out.toString();
  }
}
