package dev.gitopshq.activities.release;

import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.SortedSet;
import java.util.TreeSet;
import java.util.UUID;
import java.util.function.Predicate;
import org.eclipse.jgit.lib.ObjectId;

/**
 * Writes the deploy branches ({@code deploy/<environment>}) the runtime adapters watch. A deploy or
 * promotion makes the branch's root exactly the release's {@code rendered/<environment>/}; a
 * rollback puts back, from an earlier release, only the unit directories {@code
 * <cluster>/<tenant>/<service>} its scope names and leaves every other file as it is. Both apply
 * their edits to the branch's tip with the repositories' compare-and-set commit, so a retry that
 * finds the tree already written commits nothing and returns the head.
 */
public final class DeployWriter {
  /** Where delivery generation writes each environment's manifests on main. */
  public static final String RENDERED = "rendered";

  /** Kustomize bases copied for an environment; not a cluster directory. */
  public static final String BASES = "_bases";

  private final ProjectRepos repos;

  public DeployWriter(ProjectRepos repos) {
    this.repos = repos;
  }

  /**
   * What a write did.
   *
   * @param commit the branch head afterwards
   * @param changed false when the branch already held these files
   * @param tenants the tenants whose unit directories the commit wrote (or removed)
   */
  public record Written(
      String commit, boolean changed, int changedPaths, SortedSet<String> tenants) {}

  /** The path of an environment's manifests on main. */
  public static String renderedPath(String environment) {
    return RENDERED + "/" + environment;
  }

  /**
   * Makes {@code deploy/<environment>} hold exactly {@code rendered/<environment>/} of {@code
   * source}.
   *
   * @throws NoRenderedManifestsException the source has no manifests for the environment
   */
  public Written deploy(
      UUID orgId,
      UUID projectId,
      String environment,
      ObjectId source,
      Ident author,
      String message,
      String releaseLabel) {
    ObjectId tree = rendered(orgId, projectId, source, environment, releaseLabel);
    CommitResult r =
        repos.commit(
            orgId,
            projectId,
            ProjectRepos.deployBranch(environment),
            null,
            List.of(TreeEdit.tree("", tree)),
            author,
            message);
    SortedSet<String> tenants = new TreeSet<>();
    units(orgId, projectId, tree).forEach(u -> tenants.add(u.split("/")[1]));
    return new Written(r.commitName(), r.changed(), r.changedPaths(), tenants);
  }

  /**
   * Restores on {@code deploy/<environment>} what {@code scope} covers from {@code original}'s
   * {@code rendered/<environment>/}: with {@code all} the whole root; otherwise each covered unit
   * directory present in the original is put back as it was, and each covered unit directory the
   * original did not have is removed. Nothing else changes.
   */
  public Written rollback(
      UUID orgId,
      UUID projectId,
      String environment,
      ObjectId original,
      RollbackScope scope,
      Ident author,
      String message,
      String releaseLabel) {
    ObjectId originalRoot = rendered(orgId, projectId, original, environment, releaseLabel);
    String branch = ProjectRepos.deployBranch(environment);
    Optional<ObjectId> head = repos.head(orgId, projectId, branch);
    SortedSet<String> before =
        head.map(h -> units(orgId, projectId, repos.treeAt(orgId, projectId, h, "").orElseThrow()))
            .orElseGet(TreeSet::new);
    SortedSet<String> restored = units(orgId, projectId, originalRoot);

    List<TreeEdit> edits = new ArrayList<>();
    SortedSet<String> tenants = new TreeSet<>();
    if (scope.all()) {
      edits.add(TreeEdit.tree("", originalRoot));
      restored.forEach(u -> tenants.add(u.split("/")[1]));
      before.forEach(u -> tenants.add(u.split("/")[1]));
    } else {
      SortedSet<String> candidates = new TreeSet<>(restored);
      candidates.addAll(before);
      for (String unit : candidates) {
        String[] p = unit.split("/");
        if (!scope.covers(environment, p[1], p[2])) {
          continue;
        }
        tenants.add(p[1]);
        if (restored.contains(unit)) {
          ObjectId subtree =
              repos
                  .treeAt(orgId, projectId, original, renderedPath(environment) + "/" + unit)
                  .orElseThrow();
          edits.add(TreeEdit.tree(unit, subtree));
        } else {
          edits.add(TreeEdit.delete(unit));
        }
      }
    }
    CommitResult r = repos.commit(orgId, projectId, branch, null, edits, author, message);
    if (r.commit() == null) {
      throw new NoRenderedManifestsException(
          "deploy/"
              + environment
              + " does not exist and "
              + releaseLabel
              + " has nothing in the rollback's scope for "
              + environment);
    }
    return new Written(r.commitName(), r.changed(), r.changedPaths(), tenants);
  }

  /**
   * What a write of {@code environment} would compare, read before it is made (for the policy
   * decision): the branch's tree now ({@code before}, null when the branch does not exist), the
   * tree the write starts from ({@code after}) and the paths it writes ({@code writes}): every path
   * for a deploy, the covered unit directories for a scoped rollback.
   */
  public record Planned(
      String environment, ObjectId before, ObjectId after, Predicate<String> writes) {}

  /**
   * What {@link #deploy} would write; empty when the source has nothing rendered for the
   * environment (the write itself fails then).
   */
  public Optional<Planned> planDeploy(
      UUID orgId, UUID projectId, String environment, ObjectId source) {
    return repos
        .treeAt(orgId, projectId, source, renderedPath(environment))
        .map(
            after ->
                new Planned(
                    environment, branchTree(orgId, projectId, environment), after, p -> true));
  }

  /**
   * What {@link #rollback} would write; empty when the original has nothing rendered for the
   * environment (the write itself fails then).
   */
  public Optional<Planned> planRollback(
      UUID orgId, UUID projectId, String environment, ObjectId original, RollbackScope scope) {
    Predicate<String> writes =
        scope.all()
            ? p -> true
            : p -> {
              String[] u = p.split("/", 4);
              return u.length == 4 && !u[0].equals(BASES) && scope.covers(environment, u[1], u[2]);
            };
    return repos
        .treeAt(orgId, projectId, original, renderedPath(environment))
        .map(
            after ->
                new Planned(environment, branchTree(orgId, projectId, environment), after, writes));
  }

  /** The repositories this writer writes to. */
  ProjectRepos repos() {
    return repos;
  }

  private ObjectId branchTree(UUID orgId, UUID projectId, String environment) {
    return repos
        .head(orgId, projectId, ProjectRepos.deployBranch(environment))
        .flatMap(h -> repos.treeAt(orgId, projectId, h, ""))
        .orElse(null);
  }

  private ObjectId rendered(
      UUID orgId, UUID projectId, ObjectId commit, String environment, String releaseLabel) {
    return repos
        .treeAt(orgId, projectId, commit, renderedPath(environment))
        .orElseThrow(
            () ->
                new NoRenderedManifestsException(
                    releaseLabel
                        + " has no rendered manifests for "
                        + environment
                        + ": bind a cluster to it"));
  }

  /**
   * The unit directories {@code <cluster>/<tenant>/<service>} of an environment tree: every
   * directory three levels down that holds files, outside {@code _bases/}.
   */
  SortedSet<String> units(UUID orgId, UUID projectId, ObjectId tree) {
    SortedSet<String> out = new TreeSet<>();
    try {
      repos.walkFiles(
          orgId,
          projectId,
          tree,
          (path, blob) -> {
            String[] p = path.split("/", 4);
            if (p.length == 4 && !p[0].equals(BASES)) {
              out.add(p[0] + "/" + p[1] + "/" + p[2]);
            }
          });
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out;
  }
}
