package dev.gitopshq.activities.git.pg;

import java.util.UUID;

/** One file of one pack of one project's repository: the key of its rows. */
record PackFileKey(UUID orgId, UUID projectId, String packName, String ext) {
  /**
   * The size of a chunk row, and the block size JGit's block cache reads these files in: one block
   * is one row.
   */
  static final int CHUNK = 64 * 1024;
}
