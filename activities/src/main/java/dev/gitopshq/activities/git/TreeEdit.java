package dev.gitopshq.activities.git;

import org.eclipse.jgit.lib.ObjectId;

/**
 * One change to a branch's tree. Paths are repository-relative and checked by {@link RepoPaths}.
 */
public sealed interface TreeEdit {
  String path();

  /** Writes a regular file (mode 100644). */
  record PutFile(String path, byte[] content) implements TreeEdit {}

  /** Removes a file, or a directory with everything under it; nothing when absent. */
  record Delete(String path) implements TreeEdit {}

  /**
   * Replaces whatever is at {@code path} with the tree {@code tree} (which must already be in the
   * repository). An empty path replaces the whole root.
   */
  record PutTree(String path, ObjectId tree) implements TreeEdit {}

  static PutFile file(String path, byte[] content) {
    return new PutFile(path, content);
  }

  static Delete delete(String path) {
    return new Delete(path);
  }

  static PutTree tree(String path, ObjectId tree) {
    return new PutTree(path, tree);
  }
}
