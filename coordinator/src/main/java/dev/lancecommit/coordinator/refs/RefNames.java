package dev.lancecommit.coordinator.refs;

import dev.lancecommit.coordinator.table.TableRef;

/**
 * Lance's rules for tag and branch names ({@code check_valid_tag} / {@code check_valid_branch} in
 * {@code rust/lance/src/dataset/refs.rs}): what Lance refuses is refused here, so every ref written is one stock
 * Lance can read back.
 */
public final class RefNames {
  private RefNames() {}

  /** A tag: {@code [A-Za-z0-9._-]+}, not starting or ending with '.', without "..", not ending in ".lock". */
  public static String checkTag(String tag) {
    if (tag == null || tag.isEmpty()) {
      throw new InvalidRefException("A tag name cannot be empty");
    }
    for (int i = 0; i < tag.length(); i++) {
      if (!allowed(tag.charAt(i))) {
        throw new InvalidRefException("Tag '" + tag + "': only letters, digits, '.', '-' and '_' are allowed");
      }
    }
    if (tag.startsWith(".") || tag.endsWith(".") || tag.contains("..") || tag.endsWith(".lock")) {
      throw new InvalidRefException(
          "Tag '" + tag + "' cannot start or end with '.', contain '..' or end with '.lock'");
    }
    return tag;
  }

  /**
   * A branch: '/'-separated segments of {@code [A-Za-z0-9._-]+}, no empty segment, without ".." or '\', not ending
   * in ".lock", not "main".
   */
  public static String checkBranch(String branch) {
    if (branch == null || branch.isEmpty()) {
      throw new InvalidRefException("A branch name cannot be empty");
    }
    if (branch.equals(TableRef.MAIN_BRANCH)) {
      throw new InvalidRefException("'main' is the main branch; a branch cannot be named 'main'");
    }
    if (branch.contains("..") || branch.contains("\\") || branch.endsWith(".lock")) {
      throw new InvalidRefException("Branch '" + branch + "' cannot contain '..' or '\\' or end with '.lock'");
    }
    for (String segment : branch.split("/", -1)) {
      if (segment.isEmpty()) {
        throw new InvalidRefException("Branch '" + branch + "' has an empty segment (a leading, trailing or double '/')");
      }
      for (int i = 0; i < segment.length(); i++) {
        if (!allowed(segment.charAt(i))) {
          throw new InvalidRefException(
              "Branch '" + branch + "': segments allow only letters, digits, '.', '-' and '_'");
        }
      }
    }
    return branch;
  }

  /** The branch a request names: null for none or {@code main}, else a valid branch name. */
  public static String branchOrMain(String branch) {
    return branch == null || branch.equals(TableRef.MAIN_BRANCH) ? null : checkBranch(branch);
  }

  private static boolean allowed(char c) {
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '-'
        || c == '_';
  }
}
