package dev.lancecommit.chaos.differential;

import dev.lancecommit.e2e.CommitApi;

/** How one commit attempt ended, as a class both sides can be compared on, plus what was said. */
public record Outcome(Kind kind, String detail) {

  public enum Kind {
    /** The version was written. */
    COMMITTED("C"),
    /** Lance {@code RetryableCommitConflict} ("preempted"); coordinator 409/14. */
    RETRYABLE("R"),
    /** Lance {@code IncompatibleTransaction}; coordinator 409/19. */
    INCOMPATIBLE("X"),
    /** Coordinator 400/0: an operation this build cannot apply yet. */
    UNSUPPORTED("U"),
    /** Any other refusal or failure (invalid input, internal error). */
    FAILED("E");

    private final String letter;

    Kind(String letter) {
      this.letter = letter;
    }

    public String letter() {
      return letter;
    }
  }

  public static Outcome committed(long version) {
    return new Outcome(Kind.COMMITTED, "version " + version);
  }

  /** Classifies an exception thrown by stock Lance's commit (lance-core 7.0.0 reports conflicts by message). */
  public static Outcome ofLance(Throwable failure) {
    String message = String.valueOf(failure.getMessage());
    if (message.contains("Retryable commit conflict") || message.contains("preempted by concurrent transaction")) {
      return new Outcome(Kind.RETRYABLE, message);
    }
    if (message.contains("Incompatible transaction") || message.contains("is incompatible with concurrent")) {
      return new Outcome(Kind.INCOMPATIBLE, message);
    }
    return new Outcome(Kind.FAILED, failure.getClass().getSimpleName() + ": " + message);
  }

  /** Classifies a CommitTable answer by HTTP status and error code. */
  public static Outcome ofCoordinator(CommitApi.Response response) {
    if (response.status() == 200) {
      return committed(response.version());
    }
    Kind kind;
    if (response.status() == 409 && response.code() == 14) {
      kind = Kind.RETRYABLE;
    } else if (response.status() == 409 && response.code() == 19) {
      kind = Kind.INCOMPATIBLE;
    } else if (response.status() == 400 && response.code() == 0) {
      kind = Kind.UNSUPPORTED;
    } else {
      kind = Kind.FAILED;
    }
    return new Outcome(kind, response.toString());
  }

  public boolean committed() {
    return kind == Kind.COMMITTED;
  }

  @Override
  public String toString() {
    return kind + " (" + detail + ")";
  }
}
