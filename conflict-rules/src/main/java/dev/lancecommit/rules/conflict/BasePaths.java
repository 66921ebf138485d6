package dev.lancecommit.rules.conflict;

import dev.lancecommit.format.pb.BasePath;
import dev.lancecommit.format.pb.Transaction;
import dev.lancecommit.rules.conflict.ConflictCondition.Verdict;

/** b1: two UpdateBases adding the same base. */
final class BasePaths {
  private BasePaths() {}

  /** b1 (UpdateBases vs UpdateBases): X when two new bases share a non-zero id, a name, or a path; else C. */
  static Verdict b1(Transaction ours, Transaction theirs, RebaseInputs context) {
    for (BasePath mine : ours.getUpdateBases().getNewBasesList()) {
      for (BasePath committed : theirs.getUpdateBases().getNewBasesList()) {
        if (mine.getId() != 0 && mine.getId() == committed.getId()) {
          return Verdict.incompatible("both add a base path with id " + mine.getId());
        }
        if (mine.hasName() && committed.hasName() && mine.getName().equals(committed.getName())) {
          return Verdict.incompatible("both add a base path named '" + mine.getName() + "'");
        }
        if (mine.getPath().equals(committed.getPath())) {
          return Verdict.incompatible("both add base path " + mine.getPath());
        }
      }
    }
    return Verdict.compatible("the new base paths differ in id, name and path");
  }
}
