package dev.gitopshq.activities.git;

import org.eclipse.jgit.lib.ObjectId;

/**
 * What a commit did.
 *
 * @param commit the branch head afterwards: the new commit, or the unchanged head (null when the
 *     branch still does not exist)
 * @param previous the head before (null when the branch was created)
 * @param changed false when the edits left the tree as it was: nothing was committed
 * @param changedPaths files added, changed or removed
 */
public record CommitResult(ObjectId commit, ObjectId previous, boolean changed, int changedPaths) {
  public String commitName() {
    return commit == null ? null : commit.name();
  }
}
