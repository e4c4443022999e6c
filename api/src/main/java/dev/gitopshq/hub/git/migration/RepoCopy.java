package dev.gitopshq.hub.git.migration;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.SortedMap;
import java.util.TreeMap;
import org.eclipse.jgit.errors.MissingObjectException;
import org.eclipse.jgit.internal.storage.pack.PackWriter;
import org.eclipse.jgit.lib.BatchRefUpdate;
import org.eclipse.jgit.lib.Constants;
import org.eclipse.jgit.lib.NullProgressMonitor;
import org.eclipse.jgit.lib.ObjectId;
import org.eclipse.jgit.lib.ObjectInserter;
import org.eclipse.jgit.lib.ObjectReader;
import org.eclipse.jgit.lib.Ref;
import org.eclipse.jgit.lib.RefUpdate;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.revwalk.ObjectWalk;
import org.eclipse.jgit.revwalk.RevCommit;
import org.eclipse.jgit.revwalk.RevObject;
import org.eclipse.jgit.revwalk.RevWalk;
import org.eclipse.jgit.transport.PackParser;
import org.eclipse.jgit.transport.ReceiveCommand;

/**
 * Copies one repository into another of any JGit storage, as a fetch of every ref would, and checks
 * the result: the same refs, and every object reachable from them present. Only JGit's public
 * repository API is used on both sides, so the source may be a file repository and the target one
 * in PostgreSQL (or the other way round, for a rollback).
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
   * Copies every object reachable from the source's refs into {@code target} (one pack, spooled
   * through a temporary file so neither side holds it in memory), then creates the refs in one
   * batch and points HEAD where the source's points. The target must have no refs.
   */
  static Copied copy(Repository source, Repository target, Path tempDir) throws IOException {
    RefState state = refs(source);
    long objects = 0;
    long bytes = 0;
    if (!state.isEmpty()) {
      Path pack = Files.createTempFile(tempDir, "migrate-", ".pack");
      try {
        try (PackWriter writer = new PackWriter(source);
            OutputStream out = Files.newOutputStream(pack)) {
          writer.setThin(false);
          writer.setUseBitmaps(false);
          writer.preparePack(
              NullProgressMonitor.INSTANCE, Set.copyOf(state.refs().values()), Set.of());
          writer.writePack(NullProgressMonitor.INSTANCE, NullProgressMonitor.INSTANCE, out);
          objects = writer.getObjectCount();
        }
        bytes = Files.size(pack);
        try (ObjectInserter inserter = target.newObjectInserter();
            InputStream in = Files.newInputStream(pack)) {
          PackParser parser = inserter.newPackParser(in);
          parser.setAllowThin(false);
          parser.setNeedBaseObjectIds(false);
          parser.parse(NullProgressMonitor.INSTANCE);
          inserter.flush();
        }
      } finally {
        Files.deleteIfExists(pack);
      }
      BatchRefUpdate batch = target.getRefDatabase().newBatchUpdate();
      batch.setAllowNonFastForwards(true);
      // All refs at once where the storage can; otherwise one by one, still after every object.
      batch.setAtomic(target.getRefDatabase().performsAtomicTransactions());
      batch.setRefLogMessage("migrate-git-storage", false);
      for (Map.Entry<String, ObjectId> e : state.refs().entrySet()) {
        batch.addCommand(new ReceiveCommand(ObjectId.zeroId(), e.getValue(), e.getKey()));
      }
      try (RevWalk walk = new RevWalk(target)) {
        batch.execute(walk, NullProgressMonitor.INSTANCE);
      }
      for (ReceiveCommand c : batch.getCommands()) {
        if (c.getResult() != ReceiveCommand.Result.OK) {
          throw new IOException(
              "the target refused " + c.getRefName() + ": " + c.getResult() + " " + c.getMessage());
        }
      }
    }
    if (state.head() != null && !state.head().equals(Constants.HEAD)) {
      Ref head = target.exactRef(Constants.HEAD);
      if (head == null || !head.isSymbolic() || !head.getTarget().getName().equals(state.head())) {
        RefUpdate link = target.updateRef(Constants.HEAD);
        link.disableRefLog();
        RefUpdate.Result r = link.link(state.head());
        if (r != RefUpdate.Result.NEW
            && r != RefUpdate.Result.FORCED
            && r != RefUpdate.Result.NO_CHANGE) {
          throw new IOException("cannot point HEAD at " + state.head() + ": " + r);
        }
      }
    }
    return new Copied(objects, bytes);
  }

  /**
   * Why {@code target} is not a complete copy of a repository whose refs are {@code expected}, or
   * empty when it is: a ref differs, HEAD points elsewhere, or an object reachable from the refs
   * (commit, tree or blob) is missing. On success {@code counted[0]} is the number of reachable
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
          return Optional.of("object " + o.name() + " (blob) is missing after the copy");
        }
        n++;
      }
    } catch (MissingObjectException e) {
      return Optional.of("object " + e.getObjectId().name() + " is missing after the copy");
    }
    counted[0] = n;
    return Optional.empty();
  }
}
