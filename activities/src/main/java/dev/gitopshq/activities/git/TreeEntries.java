package dev.gitopshq.activities.git;

import java.io.IOException;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.dircache.DirCache;
import org.eclipse.jgit.dircache.DirCacheBuilder;
import org.eclipse.jgit.dircache.DirCacheEntry;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * A Git tree held flat in memory: every file by its full path, in path order, with its mode and
 * blob id. {@link RepoCommits} reads a branch's tree into this form, applies {@link TreeEdit}s to
 * it (a file replaces the directory at its path and the files where its directories go; a put tree
 * must hold regular files only), counts what changed and writes it back as trees; {@link RepoReads}
 * reads files out of it. Only the objects' ids are held, never their contents.
 */
final class TreeEntries {
  private TreeEntries() {}

  /** A file of a tree: its mode and its blob's id. */
  record Entry(FileMode mode, ObjectId id) {}

  /** Every non-tree entry of a tree, by full path, with {@code prefix} in front. */
  static SortedMap<String, Entry> entries(ObjectReader reader, ObjectId tree, String prefix)
      throws IOException {
    SortedMap<String, Entry> out = new TreeMap<>();
    try (TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(tree);
      tw.setRecursive(true);
      while (tw.next()) {
        out.put(prefix + tw.getPathString(), new Entry(tw.getFileMode(0), tw.getObjectId(0)));
      }
    }
    return out;
  }

  /**
   * The regular files of a tree under {@code prefix}, keyed by their path relative to it (empty
   * prefix: the whole tree), in path order.
   */
  static SortedMap<String, ObjectId> regularFilesUnder(
      ObjectReader reader, ObjectId tree, String prefix) throws IOException {
    SortedMap<String, ObjectId> out = new TreeMap<>();
    String base = prefix.isEmpty() ? "" : prefix.endsWith("/") ? prefix : prefix + "/";
    for (Map.Entry<String, Entry> e : entries(reader, tree, "").entrySet()) {
      if (e.getKey().startsWith(base) && e.getValue().mode() == FileMode.REGULAR_FILE) {
        out.put(e.getKey().substring(base.length()), e.getValue().id());
      }
    }
    return out;
  }

  /** Applies one edit to {@code files}, inserting the blobs it writes. */
  static void apply(
      ObjectReader reader, ObjectInserter inserter, SortedMap<String, Entry> files, TreeEdit edit)
      throws IOException {
    switch (edit) {
      case TreeEdit.PutFile f -> {
        removeUnder(files, f.path());
        removeAncestors(files, f.path());
        files.put(
            f.path(),
            new Entry(FileMode.REGULAR_FILE, inserter.insert(Constants.OBJ_BLOB, f.content())));
      }
      case TreeEdit.Delete d -> removeUnder(files, d.path());
      case TreeEdit.PutTree t -> {
        SortedMap<String, Entry> put = entries(reader, t.tree(), "");
        for (Map.Entry<String, Entry> e : put.entrySet()) {
          String full = t.path().isEmpty() ? e.getKey() : t.path() + "/" + e.getKey();
          RepoPaths.requireSafe(full);
          if (e.getValue().mode() != FileMode.REGULAR_FILE) {
            // A symbolic link could point out of a checkout; the hub writes regular files only.
            throw new UnsafePathException(
                full, "must be a regular file, not a symbolic link, submodule or executable");
          }
        }
        if (t.path().isEmpty()) {
          files.clear();
          files.putAll(put);
        } else {
          removeUnder(files, t.path());
          removeAncestors(files, t.path());
          put.forEach((p, e) -> files.put(t.path() + "/" + p, e));
        }
      }
    }
  }

  /**
   * Removes the files that sit where a directory of {@code path} must go: writing {@code a/b}
   * replaces a file {@code a}. Keeping both would write a tree with two entries named {@code a}.
   */
  private static void removeAncestors(SortedMap<String, Entry> files, String path) {
    for (int slash = path.indexOf('/'); slash >= 0; slash = path.indexOf('/', slash + 1)) {
      files.remove(path.substring(0, slash));
    }
  }

  /** Removes {@code path} itself and everything under it. */
  private static void removeUnder(SortedMap<String, Entry> files, String path) {
    files.remove(path);
    files.subMap(path + "/", path + "0").clear(); // '0' sorts right after '/'
  }

  /** How many paths were added, changed or removed from {@code before} to {@code after}. */
  static int countChanges(SortedMap<String, Entry> before, SortedMap<String, Entry> after) {
    int changed = 0;
    for (Map.Entry<String, Entry> e : after.entrySet()) {
      if (!e.getValue().equals(before.get(e.getKey()))) {
        changed++;
      }
    }
    for (String path : before.keySet()) {
      if (!after.containsKey(path)) {
        changed++;
      }
    }
    return changed;
  }

  /** Inserts the trees that hold {@code files} and returns the root tree's id. */
  static ObjectId writeTree(ObjectInserter inserter, SortedMap<String, Entry> files)
      throws IOException {
    DirCache index = DirCache.newInCore();
    DirCacheBuilder builder = index.builder();
    for (Map.Entry<String, Entry> e : files.entrySet()) {
      DirCacheEntry entry = new DirCacheEntry(e.getKey());
      entry.setFileMode(e.getValue().mode());
      entry.setObjectId(e.getValue().id());
      builder.add(entry);
    }
    builder.finish();
    return index.writeTree(inserter);
  }
}
