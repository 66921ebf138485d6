package dev.lancecommit.coordinator.table;

import java.util.List;
import java.util.Objects;

/**
 * What the commit path needs to know about a catalogued table, and which of its branches a commit goes to.
 *
 * <p>A Lance branch {@code b} is a dataset of its own, rooted at {@code {location}/tree/{b}} (Lance's layout: the
 * segments of a name like {@code feature/x} become directories). Its versions have their own numbers, so everything
 * keyed by version (lanes, event ids, publication progress) is keyed by {@link #streamKey()}, which is the table uuid
 * for the main branch and {@code {tableUuid}@{branch}} for another.
 *
 * @param id the identifier parts, namespace first, table name last
 * @param location the table root URI ({@code s3://bucket/prefix/t.lance} or an absolute local path), also for a branch
 * @param tableUuid a stable uuid the catalog gave the table; commit event ids are {@code streamKey:version}
 * @param branch the branch, or null for the main branch
 */
public record TableRef(List<String> id, String location, String tableUuid, String branch) {
  /** Lance's directory of branch datasets below the table root. */
  public static final String BRANCHES_DIR = "tree";
  /** Lance's name of the main branch ({@code main} in a request means no branch). */
  public static final String MAIN_BRANCH = "main";

  public TableRef {
    id = List.copyOf(id);
    if (branch != null && (branch.isEmpty() || branch.equals(MAIN_BRANCH))) {
      throw new IllegalArgumentException("The main branch is named by a null branch, not '" + branch + "'");
    }
  }

  /** The table on its main branch. */
  public TableRef(List<String> id, String location, String tableUuid) {
    this(id, location, tableUuid, null);
  }

  /** The same table on {@code branch} (null or {@code main}: the main branch). */
  public TableRef onBranch(String branch) {
    String name = branch == null || branch.equals(MAIN_BRANCH) ? null : branch;
    return Objects.equals(name, this.branch) ? this : new TableRef(id, location, tableUuid, name);
  }

  public boolean isMain() {
    return branch == null;
  }

  /** The root of the branch's dataset: the table location for main, {@code {location}/tree/{branch}} otherwise. */
  public String branchRoot() {
    return branch == null ? location : trimTrailingSlash(location) + "/" + branchPath(branch);
  }

  /** The branch's directory relative to the table root ({@code tree/{branch}}); "" for main. */
  public static String branchPath(String branch) {
    return branch == null ? "" : BRANCHES_DIR + "/" + branch;
  }

  /** What versions are counted under: the table uuid for main, {@code {tableUuid}@{branch}} for a branch. */
  public String streamKey() {
    return branch == null ? tableUuid : tableUuid + "@" + branch;
  }

  /** The identifier joined with the spec's default delimiter, used as the Kafka key. */
  public String joinedId() {
    return String.join("$", id);
  }

  /** The table as log lines name it: its joined id, with {@code @branch} for a branch. */
  public String displayName() {
    return branch == null ? joinedId() : joinedId() + "@" + branch;
  }

  private static String trimTrailingSlash(String uri) {
    return uri.endsWith("/") ? uri.substring(0, uri.length() - 1) : uri;
  }
}
