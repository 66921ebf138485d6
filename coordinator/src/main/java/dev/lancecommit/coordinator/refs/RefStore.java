package dev.lancecommit.coordinator.refs;

import dev.lancecommit.coordinator.storage.ObjectAlreadyExistsException;
import dev.lancecommit.coordinator.storage.ObjectInfo;
import dev.lancecommit.coordinator.storage.StorageLocation;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;

/**
 * The {@code _refs/} directory of one table, where Lance keeps tags and branches (always at the table root, also for
 * refs about branches): {@code _refs/tags/{tag}.json} and {@code _refs/branches/{name}.json} with every '/' of the
 * name written as {@code %2F}. New refs are created with put-if-absent, as Lance does ({@code put_ref_if_absent}).
 * Blocking.
 */
public final class RefStore {
  static final String REFS_DIR = "_refs";
  static final String TAGS_DIR = REFS_DIR + "/tags";
  static final String BRANCHES_DIR = REFS_DIR + "/branches";
  private static final String JSON = ".json";

  private final StorageLocation root;
  private final String table;

  /**
   * @param root the table root (the main branch's root)
   * @param table the table as messages name it
   */
  public RefStore(StorageLocation root, String table) {
    this.root = root;
    this.table = table;
  }

  // ------------------------------------------------------------------------------------------------ tags

  /** Every tag, by name. */
  public Map<String, TagContents> tags() {
    Map<String, TagContents> tags = new TreeMap<>();
    for (String name : root.store().listDirectory(root.key(TAGS_DIR))) {
      if (name.endsWith(JSON) && name.length() > JSON.length()) {
        String tag = name.substring(0, name.length() - JSON.length());
        tag(tag).ifPresent(contents -> tags.put(tag, contents));
      }
    }
    return tags;
  }

  public Optional<TagContents> tag(String tag) {
    return root.store().get(tagKey(tag)).map(bytes -> TagContents.parse(bytes, "Tag file " + tagKey(tag)));
  }

  /** @throws TagAlreadyExistsException when a tag of that name exists (nothing is written) */
  public void createTag(String tag, TagContents contents) {
    try {
      root.store().putIfAbsent(tagKey(tag), contents.toBytes());
    } catch (ObjectAlreadyExistsException e) {
      throw new TagAlreadyExistsException(table, tag);
    }
  }

  /** Rewrites an existing tag (Lance's {@code Tags::update} does a plain put too). */
  public void replaceTag(String tag, TagContents contents) {
    root.store().put(tagKey(tag), contents.toBytes());
  }

  public void deleteTag(String tag) {
    root.store().delete(tagKey(tag));
  }

  private String tagKey(String tag) {
    return root.key(TAGS_DIR + "/" + tag + JSON);
  }

  // ------------------------------------------------------------------------------------------------ branches

  /**
   * Every branch, by name. Lists {@code _refs/branches/} recursively: some stores keep {@code a%2Fb.json} as one
   * key, others as the path {@code a/b.json}; both name branch {@code a/b}, as in Lance.
   */
  public Map<String, BranchContents> branches() {
    Map<String, BranchContents> branches = new TreeMap<>();
    String prefix = root.key(BRANCHES_DIR) + "/";
    for (ObjectInfo info : root.store().list(root.key(BRANCHES_DIR))) {
      String relative = info.key().substring(prefix.length());
      if (relative.endsWith(JSON) && relative.length() > JSON.length()) {
        String name = decode(relative.substring(0, relative.length() - JSON.length()));
        root.store().get(info.key())
            .ifPresent(bytes -> branches.put(name, BranchContents.parse(bytes, "Branch file " + info.key())));
      }
    }
    return branches;
  }

  public Optional<BranchContents> branch(String branch) {
    return root.store().get(branchKey(branch))
        .map(bytes -> BranchContents.parse(bytes, "Branch file " + branchKey(branch)));
  }

  /** @throws BranchAlreadyExistsException when a branch of that name exists (nothing is written) */
  public void createBranch(String branch, BranchContents contents) {
    try {
      root.store().putIfAbsent(branchKey(branch), contents.toBytes());
    } catch (ObjectAlreadyExistsException e) {
      throw new BranchAlreadyExistsException(table, branch);
    }
  }

  public void deleteBranch(String branch) {
    root.store().delete(branchKey(branch));
  }

  private String branchKey(String branch) {
    return root.key(BRANCHES_DIR + "/" + branch.replace("/", "%2F") + JSON);
  }

  private static String decode(String name) {
    return name.replace("%2F", "/").replace("%2f", "/");
  }
}
