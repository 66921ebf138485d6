package dev.lancecommit.coordinator.observe;

import dev.lancecommit.coordinator.commit.CommitObserver;
import dev.lancecommit.coordinator.commit.CommitObserver.PhaseScope;
import dev.lancecommit.coordinator.commit.CommitPhase;
import dev.lancecommit.coordinator.commit.CommitRequest;
import dev.lancecommit.coordinator.commit.CommitResult;
import dev.lancecommit.coordinator.table.TableRef;
import dev.lancecommit.events.TraceContext;
import dev.lancecommit.events.tracing.EventTracing;
import dev.lancecommit.rules.OperationKind;
import dev.lancecommit.rules.conflict.CommitConflictException;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.micrometer.core.instrument.Timer;
import io.opentelemetry.api.trace.Span;
import io.opentelemetry.api.trace.StatusCode;
import io.opentelemetry.api.trace.Tracer;
import io.opentelemetry.context.Context;
import io.opentelemetry.context.Scope;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/**
 * The coordinator's {@link CommitObserver}: for every commit it records the {@code lance_commit_*} metrics, makes the
 * {@code lance.commit} span with one child span per phase (current on the lane's thread, so storage calls nest under
 * them), gives the commit event the span's trace context, and writes the commit log line.
 */
public final class CommitTelemetry implements CommitObserver {
  static final String REQUESTS = "lance.commit.requests";
  static final String DURATION = "lance.commit.duration";
  static final String PHASE = "lance.commit.phase";
  static final String CONFLICTS = "lance.commit.conflicts";
  static final String GROUP_SIZE = "lance.commit.group.size";

  /** Bucket bounds of the latency histograms: 1 ms to 30 s. */
  static final Duration[] LATENCY_BUCKETS = {
      Duration.ofMillis(1), Duration.ofMillis(2), Duration.ofMillis(5), Duration.ofMillis(10), Duration.ofMillis(25),
      Duration.ofMillis(50), Duration.ofMillis(100), Duration.ofMillis(250), Duration.ofMillis(500),
      Duration.ofSeconds(1), Duration.ofMillis(2500), Duration.ofSeconds(5), Duration.ofSeconds(10),
      Duration.ofSeconds(30)};

  private final MeterRegistry registry;
  private final Tracer tracer;
  private final boolean perTable;
  private final CommitLog log;
  private final Map<CommitPhase, Timer> phaseTimers = new EnumMap<>(CommitPhase.class);
  private final DistributionSummary groupSize;

  public CommitTelemetry(MeterRegistry registry, Tracer tracer, boolean perTable, CommitLog log) {
    this.registry = registry;
    this.tracer = tracer;
    this.perTable = perTable;
    this.log = log;
    for (CommitPhase phase : CommitPhase.values()) {
      phaseTimers.put(phase, Timer.builder(PHASE)
          .description("Time commits spend in each phase of their lane")
          .tag("phase", phase.label())
          .serviceLevelObjectives(LATENCY_BUCKETS)
          .register(registry));
    }
    this.groupSize = DistributionSummary.builder(GROUP_SIZE)
        .description("Transactions committed together in one version")
        .serviceLevelObjectives(1, 2, 4, 8, 16, 32, 64, 128)
        .register(registry);
  }

  @Override
  public Observation begin(TableRef table, CommitRequest request) {
    return new Commit(table, Context.current());
  }

  /** How many transactions the answer's version holds (a group commit's members). */
  static int groupSizeOf(CommitResult result) {
    return result.groupSize();
  }

  private Tags tableTags(TableRef table) {
    return perTable ? Tags.of("table", table.joinedId()) : Tags.empty();
  }

  private final class Commit implements Observation {
    private final TableRef table;
    private final long started = System.nanoTime();
    private final Span span;
    private final Context context;
    private final long[] phaseNanos = new long[CommitPhase.values().length];
    private String operation = "unknown";
    private boolean alreadyCommitted;
    // guarded by this: the lane's thread and the answering thread both end things
    private CommitPhase phase = CommitPhase.QUEUE_WAIT;
    private long phaseStarted = started;
    private Span phaseSpan;
    private boolean inLane;
    private boolean answered;
    private boolean spanEnded;

    Commit(TableRef table, Context parent) {
      this.table = table;
      this.span = tracer.spanBuilder("lance.commit").setParent(parent)
          .setAttribute("lance.table", table.joinedId())
          .setAttribute("lance.table_uuid", table.tableUuid())
          .startSpan();
      this.context = parent.with(span);
      this.phaseSpan = phaseSpan(CommitPhase.QUEUE_WAIT);
    }

    private Span phaseSpan(CommitPhase phase) {
      return tracer.spanBuilder("lance.commit." + phase.label()).setParent(context).startSpan();
    }

    @Override
    public synchronized void phase(CommitPhase next) {
      inLane = true;
      if (next == phase && phaseSpan != null) {
        return;
      }
      endPhase();
      phase = next;
      phaseStarted = System.nanoTime();
      phaseSpan = phaseSpan(next);
    }

    @Override
    public synchronized PhaseScope enterPhase() {
      Scope scope = (phaseSpan != null ? phaseSpan : span).makeCurrent();
      return scope::close;
    }

    private void endPhase() {
      if (phaseSpan != null) {
        phaseSpan.end();
        phaseSpan = null;
        phaseNanos[phase.ordinal()] += System.nanoTime() - phaseStarted;
      }
    }

    @Override
    public void operation(OperationKind kind) {
      operation = kind.lanceName();
      span.setAttribute("lance.operation", operation);
    }

    @Override
    public void alreadyCommitted() {
      alreadyCommitted = true;
    }

    @Override
    public TraceContext trace() {
      return EventTracing.traceOf(context);
    }

    @Override
    public synchronized void leftLane() {
      endPhase();
      inLane = false;
      for (CommitPhase p : CommitPhase.values()) {
        if (phaseNanos[p.ordinal()] > 0) {
          phaseTimers.get(p).record(phaseNanos[p.ordinal()], TimeUnit.NANOSECONDS);
        }
      }
      if (answered) {
        endSpan();
      }
    }

    @Override
    public void finished(CommitResult result, Throwable failure) {
      long nanos = System.nanoTime() - started;
      String outcome = CommitOutcomes.of(result, alreadyCommitted, failure);
      Tags tags = tableTags(table);
      Counter.builder(REQUESTS).description("Commit requests by operation and outcome")
          .tags(tags).tag("operation", operation).tag("outcome", outcome)
          .register(registry).increment();
      Timer.builder(DURATION).description("Commit requests end to end, arrival to answer")
          .tags(tags).tag("operation", operation)
          .serviceLevelObjectives(LATENCY_BUCKETS)
          .register(registry).record(nanos, TimeUnit.NANOSECONDS);
      CommitConflictException conflict = CommitOutcomes.conflict(failure);
      if (conflict != null) {
        Counter.builder(CONFLICTS).description("Conflicts refused, by the conflict matrix's rule that decided")
            .tags(tags).tag("rule", conflict.rule()).register(registry).increment();
      }
      Integer members = result == null ? null : groupSizeOf(result);
      if (result != null && !alreadyCommitted) {
        groupSize.record(members);
      }
      String traceId = span.getSpanContext().isValid() ? span.getSpanContext().getTraceId() : null;
      log.commit(table.joinedId(), result == null ? null : result.version(), operation, outcome, nanos, members,
          traceId, failure);
      synchronized (this) {
        span.setAttribute("lance.outcome", outcome);
        if (result != null) {
          span.setAttribute("lance.version", result.version());
        } else {
          span.setStatus(StatusCode.ERROR, outcome);
          span.recordException(CommitOutcomes.unwrap(failure));
        }
        answered = true;
        if (!inLane) {
          endPhase(); // a commit refused before its lane took it up still has its queue wait open
          endSpan();
        }
      }
    }

    private void endSpan() {
      if (!spanEnded) {
        spanEnded = true;
        span.end();
      }
    }
  }
}
