package dev.gitopshq.activities.generation;

import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.render.Renderer;
import dev.gitopshq.activities.render.Unit;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.Set;
import java.util.UUID;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Which units of a new generation must be rendered: a unit whose {@link
 * dev.gitopshq.activities.render.UnitFingerprint fingerprint} equals that of the same unit (same
 * path) in an earlier generation, whose tree was recorded and is still in the repository, takes
 * that tree. Git and the renderer only (no database), so the delivery benchmark decides through the
 * same code as the plan activity.
 *
 * @param fingerprints each unit's fingerprint, in the units' order
 * @param trees each unit's reused tree, or null when it must be rendered
 */
public record UnitReuse(List<String> fingerprints, List<ObjectId> trees) {

  /** The key of an earlier unit in {@code earlier}: its path and fingerprint. */
  public static String key(String path, String fingerprint) {
    return path + "\n" + fingerprint;
  }

  /**
   * @param earlier the recorded trees of earlier units by {@link #key}
   */
  public static UnitReuse decide(
      ProjectRepos repos,
      UUID org,
      UUID project,
      Renderer renderer,
      List<Unit> units,
      Map<String, ObjectId> earlier) {
    List<String> fingerprints = new ArrayList<>(units.size());
    List<ObjectId> candidates = new ArrayList<>(units.size());
    for (Unit u : units) {
      String fingerprint = renderer.fingerprint(u);
      fingerprints.add(fingerprint);
      candidates.add(earlier.get(key(u.path(), fingerprint)));
    }
    Set<ObjectId> present =
        repos.existingTrees(
            org, project, candidates.stream().filter(Objects::nonNull).distinct().toList());
    List<ObjectId> trees = new ArrayList<>(units.size());
    for (ObjectId c : candidates) {
      trees.add(c != null && present.contains(c) ? c : null);
    }
    return new UnitReuse(List.copyOf(fingerprints), Collections.unmodifiableList(trees));
  }

  /** Whether unit {@code i} takes an earlier tree. */
  public boolean reused(int i) {
    return trees.get(i) != null;
  }
}
