package dev.gitopshq.activities.git;

import dev.gitopshq.activities.git.ProjectRepos.Blob;
import dev.gitopshq.activities.git.ProjectRepos.FileVisitor;
import dev.gitopshq.activities.git.ProjectRepos.TreeTop;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Collection;
import java.util.HashSet;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.FileMode;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.treewalk.TreeWalk;

/**
 * Reads of the trees and files of the hosted repositories, behind {@link ProjectRepos}: which trees
 * a repository still holds, the top of a tree down to the directories a caller picks, the tree at a
 * path, and the regular files under a path (their contents, their blob ids, or one by one as they
 * are walked). A commit and its root tree are interchangeable wherever a tree is read. Nothing here
 * writes.
 */
final class RepoReads {
  private final RepoStore store;

  RepoReads(RepoStore store) {
    this.store = store;
  }

  /** {@link ProjectRepos#existingTrees}. */
  Set<ObjectId> existingTrees(UUID orgId, UUID projectId, Collection<ObjectId> trees) {
    Set<ObjectId> out = new HashSet<>();
    if (trees.isEmpty()) {
      return out;
    }
    Repository repo = store.open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader()) {
      for (ObjectId id : trees) {
        // An object id names its content and type: the id of a tree, when present, is that tree.
        if (reader.has(id)) {
          out.add(id);
        }
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#treeTop}. */
  TreeTop treeTop(
      UUID orgId, UUID projectId, ObjectId commit, String prefix, Predicate<String> isLeaf) {
    SortedMap<String, ObjectId> leaves = new TreeMap<>();
    SortedMap<String, ObjectId> files = new TreeMap<>();
    Optional<ObjectId> top = treeAt(orgId, projectId, commit, prefix);
    if (top.isEmpty()) {
      return new TreeTop(leaves, files);
    }
    Repository repo = store.open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(top.get());
      tw.setRecursive(false);
      while (tw.next()) {
        String path = tw.getPathString();
        if (tw.isSubtree()) {
          if (isLeaf.test(path)) {
            leaves.put(path, tw.getObjectId(0));
          } else {
            tw.enterSubtree();
          }
        } else {
          files.put(path, tw.getObjectId(0));
        }
      }
      return new TreeTop(leaves, files);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#treeAt}. */
  Optional<ObjectId> treeAt(UUID orgId, UUID projectId, ObjectId commit, String path) {
    Repository repo = store.open(orgId, projectId);
    try (RevWalk walk = new RevWalk(repo)) {
      ObjectId root = walk.parseCommit(commit).getTree();
      if (path.isEmpty()) {
        return Optional.of(root);
      }
      try (TreeWalk tw = TreeWalk.forPath(repo, path, root)) {
        if (tw == null || tw.getFileMode(0) != FileMode.TREE) {
          return Optional.empty();
        }
        return Optional.of(tw.getObjectId(0));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#readFiles}. */
  SortedMap<String, byte[]> readFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    Repository repo = store.open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader)) {
      SortedMap<String, byte[]> out = new TreeMap<>();
      for (Map.Entry<String, ObjectId> e :
          TreeEntries.regularFilesUnder(reader, tree(walk, commitOrTree), prefix).entrySet()) {
        out.put(e.getKey(), reader.open(e.getValue()).getBytes());
      }
      return out;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#listFiles}. */
  SortedMap<String, ObjectId> listFiles(
      UUID orgId, UUID projectId, ObjectId commitOrTree, String prefix) {
    Repository repo = store.open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader)) {
      return TreeEntries.regularFilesUnder(reader, tree(walk, commitOrTree), prefix);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** {@link ProjectRepos#walkFiles}. */
  void walkFiles(UUID orgId, UUID projectId, ObjectId commitOrTree, FileVisitor visitor)
      throws IOException {
    Repository repo = store.open(orgId, projectId);
    try (ObjectReader reader = repo.newObjectReader();
        RevWalk walk = new RevWalk(reader);
        TreeWalk tw = new TreeWalk(reader)) {
      tw.addTree(tree(walk, commitOrTree));
      tw.setRecursive(true);
      while (tw.next()) {
        ObjectId id = tw.getObjectId(0);
        visitor.visit(
            tw.getPathString(),
            new Blob() {
              @Override
              public long size() throws IOException {
                return reader.getObjectSize(id, Constants.OBJ_BLOB);
              }

              @Override
              public byte[] bytes() throws IOException {
                return reader.open(id).getBytes();
              }
            });
      }
    }
  }

  /** The tree of a commit, or the tree itself. */
  private static ObjectId tree(RevWalk walk, ObjectId commitOrTree) throws IOException {
    return walk.parseAny(commitOrTree) instanceof RevCommit c ? c.getTree() : commitOrTree;
  }
}
