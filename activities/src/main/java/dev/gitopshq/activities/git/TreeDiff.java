package dev.gitopshq.activities.git;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.UUID;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectLoader;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.treewalk.AbstractTreeIterator;
import org.eclipse.jgit.treewalk.CanonicalTreeParser;
import org.eclipse.jgit.treewalk.EmptyTreeIterator;
import org.eclipse.jgit.treewalk.TreeWalk;
import org.eclipse.jgit.treewalk.filter.TreeFilter;

/**
 * The regular files that differ between two trees of a project's repository, one at a time: what a
 * deployment would change on a deploy branch. Subtrees with the same id on both sides are skipped
 * without being read, and a file's content is read only when the caller asks for it, up to a size
 * it names, so comparing two large trees holds one file in memory at a time.
 */
public final class TreeDiff implements AutoCloseable {
  private final Repository repo;
  private final ObjectReader reader;

  private TreeDiff(Repository repo) {
    this.repo = repo;
    this.reader = repo.newObjectReader();
  }

  /** A reader over the project's repository; close it when done. */
  public static TreeDiff open(ProjectRepos repos, UUID orgId, UUID projectId) {
    return new TreeDiff(repos.open(orgId, projectId));
  }

  /**
   * One file that differs.
   *
   * @param path its path relative to the trees' roots
   * @param before its blob in the first tree, null when the file is new
   * @param after its blob in the second tree, null when the file is removed
   */
  public record FileChange(String path, ObjectId before, ObjectId after) {}

  /** Told of each differing file, in path order. */
  @FunctionalInterface
  public interface Visitor {
    void visit(FileChange change);
  }

  /** What {@link #read} found: the bytes, or how large a file over the limit is. */
  public record Content(byte[] bytes, long size) {
    public boolean tooLarge() {
      return bytes == null;
    }
  }

  /**
   * Calls {@code visitor} for every regular file whose path {@code include} accepts and whose
   * content differs between {@code before} and {@code after} (either may be null: an empty tree).
   */
  public void walk(ObjectId before, ObjectId after, Predicate<String> include, Visitor visitor) {
    try (TreeWalk tw = new TreeWalk(repo, reader)) {
      tw.addTree(iterator(before));
      tw.addTree(iterator(after));
      tw.setRecursive(true);
      tw.setFilter(TreeFilter.ANY_DIFF);
      while (tw.next()) {
        String path = tw.getPathString();
        if (!include.test(path)) {
          continue;
        }
        ObjectId b = regular(tw, 0);
        ObjectId a = regular(tw, 1);
        if ((b != null || a != null) && (b == null || !b.equals(a))) {
          visitor.visit(new FileChange(path, b, a));
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** A blob's bytes when it holds at most {@code maxBytes}; otherwise only its size. */
  public Content read(ObjectId blob, long maxBytes) {
    try {
      ObjectLoader loader = reader.open(blob);
      long size = loader.getSize();
      if (size > maxBytes) {
        return new Content(null, size);
      }
      return new Content(loader.getCachedBytes((int) maxBytes), size);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private AbstractTreeIterator iterator(ObjectId tree) throws IOException {
    if (tree == null) {
      return new EmptyTreeIterator();
    }
    CanonicalTreeParser p = new CanonicalTreeParser();
    p.reset(reader, tree);
    return p;
  }

  /** The blob at this entry of tree {@code n} when it is a regular (or executable) file. */
  private static ObjectId regular(TreeWalk tw, int n) {
    FileMode mode = tw.getFileMode(n);
    if (mode == FileMode.REGULAR_FILE || mode == FileMode.EXECUTABLE_FILE) {
      return tw.getObjectId(n);
    }
    return null;
  }

  @Override
  public void close() {
    reader.close();
  }
}
