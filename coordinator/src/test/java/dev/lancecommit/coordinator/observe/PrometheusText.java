package dev.lancecommit.coordinator.observe;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** A parsed Prometheus text exposition: samples by name and labels, and the family names its TYPE lines declare. */
final class PrometheusText {
  private static final Pattern SAMPLE =
      Pattern.compile("([a-zA-Z_:][a-zA-Z0-9_:]*)(?:\\{(.*)\\})?\\s+(\\S+)(?:\\s+\\d+)?");
  private static final Pattern LABEL = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)=\"((?:[^\"\\\\]|\\\\.)*)\",?");

  record Sample(String name, Map<String, String> labels, double value) {}

  private final Map<String, Map<Map<String, String>, Double>> samples = new LinkedHashMap<>();
  private final Set<String> families = new TreeSet<>();

  static PrometheusText parse(String text) {
    PrometheusText parsed = new PrometheusText();
    for (String line : text.split("\n")) {
      if (line.startsWith("# TYPE ")) {
        parsed.families.add(line.split(" ")[2]);
        continue;
      }
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      Matcher m = SAMPLE.matcher(line.trim());
      if (!m.matches()) {
        throw new IllegalArgumentException("not a sample line: " + line);
      }
      Map<String, String> labels = new TreeMap<>();
      if (m.group(2) != null) {
        Matcher l = LABEL.matcher(m.group(2));
        while (l.find()) {
          labels.put(l.group(1), l.group(2));
        }
      }
      parsed.samples.computeIfAbsent(m.group(1), k -> new LinkedHashMap<>())
          .put(labels, Double.parseDouble(m.group(3)));
    }
    return parsed;
  }

  /** Every sample name (with its _total, _count, _bucket... suffix). */
  Set<String> sampleNames() {
    return samples.keySet();
  }

  Set<String> families() {
    return families;
  }

  /** The value of the sample whose labels include {@code match}, summed over the rest; 0 when there is none. */
  double value(String name, String... match) {
    Map<String, String> wanted = new TreeMap<>();
    for (int i = 0; i < match.length; i += 2) {
      wanted.put(match[i], match[i + 1]);
    }
    double total = 0;
    for (Map.Entry<Map<String, String>, Double> e : samples.getOrDefault(name, Map.of()).entrySet()) {
      if (e.getKey().entrySet().containsAll(wanted.entrySet())) {
        total += e.getValue();
      }
    }
    return total;
  }

  /** The label sets of {@code name}'s samples. */
  Set<Map<String, String>> labelSets(String name) {
    return samples.getOrDefault(name, Map.of()).keySet();
  }
}
