package dev.lancecommit.chaos.harness;

/**
 * One verdict of the after-run checks.
 *
 * @param name what was checked
 * @param passed the verdict
 * @param detail the numbers behind it, and the first problems found
 * @param kafka true for the checks of Kafka events (which need the coordinator's event outbox to hold under faults)
 */
public record CheckResult(String name, boolean passed, String detail, boolean kafka) {
  static CheckResult of(String name, boolean passed, String detail) {
    return new CheckResult(name, passed, detail, false);
  }

  static CheckResult kafka(String name, boolean passed, String detail) {
    return new CheckResult(name, passed, detail, true);
  }
}
