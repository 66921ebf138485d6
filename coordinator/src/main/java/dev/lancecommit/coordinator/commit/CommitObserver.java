package dev.lancecommit.coordinator.commit;

import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.rules.OperationKind;

/**
 * Watches commits on their way through the lanes: the seam metrics, traces and the commit log hang on, so the lane
 * itself only says where a commit is. {@link #NONE} does nothing.
 */
public interface CommitObserver {

  /** Called when a commit arrives, on the thread that submits it; the observation follows it to its answer. */
  Observation begin(TableRef table, CommitRequest request);

  /** One commit. */
  interface Observation {
    /**
     * The lane moves the commit into {@code phase} (ending the one before; the first call ends
     * {@link CommitPhase#QUEUE_WAIT}). Called on a lane thread; a commit's phases may run on different lane threads,
     * and one thread may carry several commits at once (a group commit), so nothing is made current here.
     */
    void phase(CommitPhase phase);

    /**
     * Makes the commit's current phase the current trace context on this thread until the scope is closed (on the
     * same thread): store calls made meanwhile are traced under it. A group's store calls are entered for its first
     * member.
     */
    default PhaseScope enterPhase() {
      return PhaseScope.NONE;
    }

    /** The decoded operation. */
    void operation(OperationKind kind);

    /** The transaction had committed before: the answer repeats that version. */
    void alreadyCommitted();

    /** The trace context the commit's event carries (null when there is none). */
    TraceContext trace();

    /** The lane is done with the commit (on the lane's thread, whatever the outcome). */
    void leftLane();

    /** The answer: a result, or the failure. Any thread, after or before {@link #leftLane}. */
    void finished(CommitResult result, Throwable failure);
  }

  /** A phase made current on one thread; closing it restores what was current before. */
  interface PhaseScope extends AutoCloseable {
    PhaseScope NONE = () -> { };

    @Override
    void close();
  }

  /** Observes nothing. */
  CommitObserver NONE = (table, request) -> NoObservation.INSTANCE;

  /** The observation of {@link #NONE}. */
  enum NoObservation implements Observation {
    INSTANCE;

    @Override
    public void phase(CommitPhase phase) { }

    @Override
    public void operation(OperationKind kind) { }

    @Override
    public void alreadyCommitted() { }

    @Override
    public TraceContext trace() {
      return null;
    }

    @Override
    public void leftLane() { }

    @Override
    public void finished(CommitResult result, Throwable failure) { }
  }
}
