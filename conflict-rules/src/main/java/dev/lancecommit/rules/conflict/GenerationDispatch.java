package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.MemWalFormat.Generation;
import dev.lancecommit.rules.conflict.ConflictOutcome.Kind;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * A MemWAL cell "nov/lance" (e.g. "m1/w1"): the Nov-2025 condition for Nov-2025 MemWAL entries, the 2026 one for
 * 2026 entries, chosen by the wire shape of both sides' entries ({@link MemWalShards#byGeneration}); R when the two
 * generations would answer differently and the bytes cannot tell which applies, or the sides are of different
 * generations.
 */
record GenerationDispatch(ConflictCondition nov2025, ConflictCondition lance2026) implements ConflictCondition {

  List<ConflictCondition> parts() {
    return List.of(nov2025, lance2026);
  }

  @Override
  public String name() {
    return nov2025.name() + "/" + lance2026.name();
  }

  @Override
  public String description() {
    return "by MemWAL generation: " + nov2025.name() + " for Nov-2025 entries, " + lance2026.name() + " for 2026"
        + " entries; R when the generations disagree and the bytes fit both";
  }

  @Override
  public Set<Kind> outcomes() {
    EnumSet<Kind> kinds = EnumSet.of(Kind.RETRYABLE);
    kinds.addAll(nov2025.outcomes());
    kinds.addAll(lance2026.outcomes());
    return Collections.unmodifiableSet(kinds);
  }

  @Override
  public boolean symmetric() {
    return nov2025.symmetric() && lance2026.symmetric();
  }

  @Override
  public Verdict evaluate(Transaction ours, Transaction theirs, RebaseInputs context) {
    return MemWalShards.byGeneration(ours, theirs, generation -> generation == Generation.NOV_2025
        ? nov2025.evaluate(ours, theirs, context) : lance2026.evaluate(ours, theirs, context)).decidedBy(name());
  }

  @Override
  public String toString() {
    return name();
  }
}
