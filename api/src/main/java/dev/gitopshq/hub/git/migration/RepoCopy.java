package dev.gitopshq.hub.git.migration;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.transport.PackParser;

/**
 * Copies the objects of one repository into another of any JGit storage, as a fetch of every ref
 * would, and checks the result: the same refs, and every object reachable from them present. Only
 * JGit's public repository API is used on both sides, so the source may be a file repository and
 * the target one in PostgreSQL. The refs are the caller's to write, after every object is stored
 * (the PostgreSQL import publishes them all in one transaction).
 */
final class RepoCopy {
  private RepoCopy() {}

  /** What a repository holds that a copy must reproduce: its refs and where HEAD points. */
  record RefState(SortedMap<String, ObjectId> refs, String head) {
    boolean isEmpty() {
      return refs.isEmpty();
    }

    /** The refs that differ, as {@code name: <mine> <id>, <theirs> <id>}, at most {@code max}. */
    List<String> differences(RefState target, int max, String mineName, String theirsName) {
      List<String> out = new ArrayList<>();
      SortedMap<String, ObjectId> all = new TreeMap<>(refs);
      all.putAll(target.refs);
      for (String name : all.keySet()) {
        ObjectId mine = refs.get(name);
        ObjectId theirs = target.refs.get(name);
        if (mine == null || !mine.equals(theirs)) {
          if (out.size() == max) {
            out.add("…");
            break;
          }
          out.add(
              name
                  + ": "
                  + mineName
                  + " "
                  + abbreviate(mine)
                  + ", "
                  + theirsName
                  + " "
                  + abbreviate(theirs));
        }
      }
      return out;
    }

    private static String abbreviate(ObjectId id) {
      return id == null ? "none" : id.abbreviate(10).name();
    }
  }

  /** The outcome of a copy: how many objects the pack carried and its size in bytes. */
  record Copied(long objects, long packBytes) {}

  /** Every ref of {@code repo} (symbolic ones resolved to their name only, as HEAD) . */
  static RefState refs(Repository repo) throws IOException {
    SortedMap<String, ObjectId> refs = new TreeMap<>();
    for (Ref ref : repo.getRefDatabase().getRefsByPrefix(Constants.R_REFS)) {
      if (!ref.isSymbolic() && ref.getObjectId() != null) {
        refs.put(ref.getName(), ref.getObjectId());
      }
    }
    Ref head = repo.exactRef(Constants.HEAD);
    String headTarget =
        head == null ? null : head.isSymbolic() ? head.getTarget().getName() : head.getName();
    return new RefState(refs, headTarget);
  }

  /**
   * Copies every object reachable from the source's refs into {@code target} as one pack, spooled
   * through a temporary file so neither side holds it in memory. No ref is written: the caller
   * points the refs at the objects once they are all stored.
   */
  static Copied copyObjects(Repository source, RefState state, Repository target, Path tempDir)
      throws IOException {
    if (state.isEmpty()) {
      return new Copied(0, 0);
    }
    Path pack = Files.createTempFile(tempDir, "migrate-", ".pack");
    try {
      long objects;
      try (PackWriter writer = new PackWriter(source);
          OutputStream out = Files.newOutputStream(pack)) {
        writer.setThin(false);
        writer.setUseBitmaps(false);
        writer.preparePack(
            NullProgressMonitor.INSTANCE, Set.copyOf(state.refs().values()), Set.of());
        writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
        objects = writer.getObjectCount();
      }
      try (ObjectInserter inserter = target.newObjectInserter();
          InputStream in = Files.newInputStream(pack)) {
        PackParser parser = inserter.newPackParser(in);
        parser.setAllowThin(false);
        parser.setNeedBaseObjectIds(false);
        parser.parse(NullProgressMonitor.INSTANCE);
        inserter.flush();
      }
      return new Copied(objects, Files.size(pack));
    } finally {
      Files.deleteIfExists(pack);
    }
  }

  /**
   * Why {@code target} is not a complete copy of a repository whose refs are {@code expected}, or
   * empty when it is: a ref differs, HEAD points elsewhere, or an object reachable from the refs is
   * missing ({@link #missingObject}). On success {@code counted[0]} is the number of reachable
   * objects.
   */
  static Optional<String> verify(Repository target, RefState expected, long[] counted)
      throws IOException {
    RefState actual = refs(target);
    List<String> diff = expected.differences(actual, 5, "source", "copy");
    if (!diff.isEmpty()) {
      return Optional.of("refs differ after the copy: " + String.join("; ", diff));
    }
    if (expected.head() != null && !expected.head().equals(actual.head())) {
      return Optional.of(
          "HEAD points at " + actual.head() + " instead of " + expected.head() + " after the copy");
    }
    return missingObject(target, expected, counted);
  }

  /**
   * Which object reachable from {@code expected}'s refs (commit, tree or blob) {@code target}
   * lacks, whatever refs it has itself; empty when none. On success {@code counted[0]} is the
   * number of reachable objects.
   */
  static Optional<String> missingObject(Repository target, RefState expected, long[] counted)
      throws IOException {
    long n = 0;
    try (ObjectReader reader = target.newObjectReader();
        ObjectWalk walk = new ObjectWalk(reader)) {
      for (ObjectId id : expected.refs().values()) {
        walk.markStart(walk.parseAny(id));
      }
      for (RevCommit c = walk.next(); c != null; c = walk.next()) {
        n++;
      }
      for (RevObject o = walk.nextObject(); o != null; o = walk.nextObject()) {
        // Trees are parsed by the walk itself; blobs are only named by their trees.
        if (o.getType() == Constants.OBJ_BLOB && !reader.has(o)) {
          return Optional.of("object " + o.name() + " (blob) is missing");
        }
        n++;
      }
    } catch (MissingObjectException e) {
      return Optional.of("object " + e.getObjectId().name() + " is missing");
    }
    counted[0] = n;
    return Optional.empty();
  }
}
