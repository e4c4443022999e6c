package dev.gitopshq.hub.delivery;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.ProjectConfigFiles;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.CommitResult;
import dev.gitopshq.activities.git.Ident;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.git.TreeEdit;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.SortedMap;
import java.util.TreeMap;
import java.util.UUID;
import java.util.function.Function;
import java.util.function.Supplier;
import org.eclipse.jgit.lib.ObjectId;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.beans.factory.annotation.Autowired;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * The change pipeline: every change of a project's configuration is applied here, atomically.
 *
 * <p>In one transaction: lock the project row ({@code select ... for update}, so changes of one
 * project are serialized across replicas), run the mutation, read the snapshot, serialize it into
 * {@code config/} ({@link ProjectConfigFiles}) and, when that differs from main's {@code config/},
 * commit it on main with a structured {@link CommitMessage}, move {@code config_revision} on and
 * audit {@code project.config_changed}. The Git commit happens inside the transaction; if anything
 * after it fails (including the database commit), the commit is undone, so Git and PostgreSQL never
 * disagree. An unchanged configuration makes no commit and no new revision. After the transaction
 * committed, delivery generation of the new revision is started.
 */
@Service
public class ProjectChanges {
  private static final Logger log = LoggerFactory.getLogger(ProjectChanges.class);

  private final ProjectMapper projects;
  private final ProjectSnapshots snapshots;
  private final ProjectRepos repos;
  private final AuditLog audit;
  private final GenerationLauncher generations;
  private final TransactionTemplate tx;
  private final Clock clock;
  private List<ConfigChangeListener> listeners = List.of();

  /** What is told of every committed change, after its transaction. */
  @Autowired(required = false)
  public void listeners(List<ConfigChangeListener> listeners) {
    this.listeners = List.copyOf(listeners);
  }

  private void changed(UUID orgId, UUID projectId, long revision) {
    for (ConfigChangeListener l : listeners) {
      try {
        l.changed(orgId, projectId, revision);
      } catch (RuntimeException e) {
        log.warn("project {}: a change listener failed: {}", projectId, e.toString());
      }
    }
  }

  public ProjectChanges(
      ProjectMapper projects,
      ProjectSnapshots snapshots,
      ProjectRepos repos,
      AuditLog audit,
      GenerationLauncher generations,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.projects = projects;
    this.snapshots = snapshots;
    this.repos = repos;
    this.audit = audit;
    this.generations = generations;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /**
   * What a change is, for its commit message.
   *
   * @param description one line for people, e.g. {@code Set values of web for acme in production}
   * @param change the kind, e.g. {@code values.updated}
   * @param scope what it touched beyond the project: environment, tenant, service (in that order)
   */
  public record Message(String description, String change, Map<String, String> scope) {
    public Message {
      scope = scope == null ? Map.of() : scope;
    }

    public static Message of(String description, String change, String... scope) {
      Map<String, String> m = new LinkedHashMap<>();
      for (int i = 0; i + 1 < scope.length; i += 2) {
        if (scope[i + 1] != null) {
          m.put(scope[i], scope[i + 1]);
        }
      }
      return new Message(description, change, m);
    }
  }

  /** What a mutation returns: its result for the caller and the message of its commit. */
  public record Step<T>(T value, Message message) {}

  /**
   * The outcome for one project.
   *
   * @param changed false when config/ came out as it was: no commit, no new revision
   * @param revision the project's configuration revision afterwards
   * @param commit main's head afterwards (the new commit when changed)
   */
  public record Outcome(boolean changed, long revision, String commit) {}

  /** A mutation's result with the outcome of its change. */
  public record Applied<T>(T value, Outcome outcome) {}

  /**
   * A change of an organization-level resource, with the projects whose configuration it changed.
   */
  public record OrgApplied<T>(T value, List<ProjectOutcome> projects) {}

  /** One project's outcome of an organization-level change. */
  public record ProjectOutcome(UUID id, String project, long revision, String commit) {}

  /**
   * Applies one change to a project.
   *
   * @param trigger what generation is told caused it (config or webhook)
   * @param mutation runs with the project row locked; throws {@link ApiException} to refuse
   * @throws ApiException 404 when the organization has no such project
   */
  public <T> Applied<T> apply(
      UUID orgId,
      UUID projectId,
      Author author,
      String trigger,
      Function<ProjectRow, Step<T>> mutation) {
    List<Committed> done = new ArrayList<>();
    Applied<T> applied;
    try {
      applied =
          tx.execute(
              status -> {
                ProjectRow project =
                    projects
                        .lock(orgId, projectId)
                        .orElseThrow(() -> ApiException.notFound("project " + projectId));
                Step<T> step = mutation.apply(project);
                Outcome o = commitConfig(project, author, step.message(), done);
                return new Applied<>(step.value(), o);
              });
    } catch (RuntimeException | Error e) {
      undo(done);
      throw e;
    }
    if (applied.outcome().changed()) {
      generations.launch(orgId, projectId, applied.outcome().revision(), trigger, author.name());
      changed(orgId, projectId, applied.outcome().revision());
    }
    return applied;
  }

  /**
   * Applies a change of an organization-level resource that projects' configuration may depend on
   * (a bundle's or base's files, an org variable, the environments' order), and commits the new
   * configuration of every project of the organization that it changed, all in one transaction.
   *
   * @param message describes the organization-level change; each commit's scope adds the project
   */
  public <T> OrgApplied<T> applyOrg(UUID orgId, Author author, Supplier<Step<T>> mutation) {
    List<Committed> done = new ArrayList<>();
    OrgApplied<T> applied;
    try {
      applied =
          tx.execute(
              status -> {
                List<ProjectRow> locked = projects.lockAll(orgId);
                Step<T> step = mutation.get();
                List<ProjectOutcome> changed = new ArrayList<>();
                for (ProjectRow p : locked) {
                  Outcome o = commitConfig(p, author, step.message(), done);
                  if (o.changed()) {
                    changed.add(new ProjectOutcome(p.id(), p.name(), o.revision(), o.commit()));
                  }
                }
                return new OrgApplied<>(step.value(), changed);
              });
    } catch (RuntimeException | Error e) {
      undo(done);
      throw e;
    }
    for (ProjectOutcome p : applied.projects()) {
      generations.launch(orgId, p.id(), p.revision(), "org", author.name());
      changed(orgId, p.id(), p.revision());
    }
    return applied;
  }

  /**
   * What a change across projects returns: its result and the message of each project whose
   * configuration it changed (by project id); the projects not named are not committed.
   */
  public record AcrossStep<T>(T value, Map<UUID, Message> messages) {}

  /**
   * Applies a change that may touch the configuration of several projects of an organization, each
   * with its own commit message (e.g. a cluster's labels, which decide which environments its
   * selectors bind it to), in one transaction: the organization's projects are locked, the mutation
   * runs, then {@code config/} of every project it names is committed. Generation of each new
   * revision starts after the transaction.
   *
   * @param mutation runs with the organization's projects locked; throws {@link ApiException} to
   *     refuse
   */
  public <T> OrgApplied<T> applyAcross(
      UUID orgId, Author author, Function<List<ProjectRow>, AcrossStep<T>> mutation) {
    List<Committed> done = new ArrayList<>();
    OrgApplied<T> applied;
    try {
      applied =
          tx.execute(
              status -> {
                List<ProjectRow> locked = projects.lockAll(orgId);
                AcrossStep<T> step = mutation.apply(locked);
                List<ProjectOutcome> changed = new ArrayList<>();
                for (ProjectRow p : locked) {
                  Message message = step.messages().get(p.id());
                  if (message == null) {
                    continue;
                  }
                  Outcome o = commitConfig(p, author, message, done);
                  if (o.changed()) {
                    changed.add(new ProjectOutcome(p.id(), p.name(), o.revision(), o.commit()));
                  }
                }
                return new OrgApplied<>(step.value(), changed);
              });
    } catch (RuntimeException | Error e) {
      undo(done);
      throw e;
    }
    for (ProjectOutcome p : applied.projects()) {
      generations.launch(orgId, p.id(), p.revision(), "config", author.name());
      changed(orgId, p.id(), p.revision());
    }
    return applied;
  }

  /**
   * Creates a project: its row, its bare repository and the first commit of {@code config/}, at
   * revision 1. When anything fails, the repository is removed again.
   *
   * @param insert inserts the row (and audits); throws {@link ApiException} to refuse
   */
  public Applied<ProjectRow> create(
      UUID orgId, UUID projectId, Author author, Supplier<ProjectRow> insert) {
    List<Committed> done = new ArrayList<>();
    boolean[] created = {false};
    Applied<ProjectRow> applied;
    try {
      applied =
          tx.execute(
              status -> {
                ProjectRow row = insert.get();
                repos.create(orgId, projectId);
                created[0] = true;
                ProjectRow locked = projects.lock(orgId, projectId).orElseThrow();
                Outcome o =
                    commitConfig(
                        locked,
                        author,
                        Message.of("Create project " + row.name(), "project.created"),
                        done);
                return new Applied<>(projects.findById(orgId, projectId).orElseThrow(), o);
              });
    } catch (RuntimeException | Error e) {
      if (created[0]) {
        try {
          repos.delete(orgId, projectId);
        } catch (RuntimeException cleanup) {
          log.warn(
              "could not remove the repository of the project that was not created: {}",
              cleanup.toString());
        }
      }
      throw e;
    }
    generations.launch(orgId, projectId, applied.outcome().revision(), "config", author.name());
    return applied;
  }

  /** A Git commit made inside a transaction that has not committed yet. */
  private record Committed(UUID orgId, UUID projectId, CommitResult result) {}

  private Outcome commitConfig(ProjectRow p, Author author, Message message, List<Committed> done) {
    ProjectSnapshot snapshot = snapshots.load(p.orgId(), p.id());
    SortedMap<String, byte[]> files = ProjectConfigFiles.files(snapshot);
    Map<String, byte[]> relative = new TreeMap<>();
    String prefix = ProjectConfigFiles.DIR + "/";
    files.forEach((path, bytes) -> relative.put(path.substring(prefix.length()), bytes));
    ObjectId tree = repos.writeTree(p.orgId(), p.id(), relative);

    Map<String, String> scope = new LinkedHashMap<>();
    scope.put("project", p.name());
    scope.putAll(message.scope());
    String text =
        new CommitMessage(message.description(), "", author.display(), scope, message.change())
            .format();
    // No expected head: generation commits rendered/ on main too, and the edit only replaces
    // config/, which only this pipeline writes, under the project's row lock.
    CommitResult r =
        repos.commit(
            p.orgId(),
            p.id(),
            ProjectRepos.MAIN,
            null,
            List.of(TreeEdit.tree(ProjectConfigFiles.DIR, tree)),
            author.ident(),
            text);
    if (!r.changed()) {
      return new Outcome(false, p.configRevision(), r.commitName());
    }
    done.add(new Committed(p.orgId(), p.id(), r));
    long revision = p.configRevision() + 1;
    if (projects.setConfigRevision(p.orgId(), p.id(), p.configRevision(), revision, clock.instant())
        != 1) {
      throw new IllegalStateException("project " + p.id() + " changed revision under its lock");
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("project", p.name());
    details.put("revision", revision);
    details.put("commit", r.commitName());
    details.put("change", message.change());
    details.put("description", message.description());
    details.put("scope", scope);
    audit.record(
        p.orgId(), author.actor(), "project.config_changed", "project", p.id().toString(), details);
    return new Outcome(true, revision, r.commitName());
  }

  /** Takes back commits whose database half did not commit, newest first. */
  private void undo(List<Committed> done) {
    for (int i = done.size() - 1; i >= 0; i--) {
      Committed c = done.get(i);
      try {
        ObjectId previous = c.result().previous();
        if (repos.undo(
            c.orgId(), c.projectId(), ProjectRepos.MAIN, c.result().commit(), previous)) {
          continue;
        }
        // The branch moved on (a generation committed on top): put the old config/ back instead.
        List<TreeEdit> edits =
            previous == null
                ? List.of(TreeEdit.delete(ProjectConfigFiles.DIR))
                : repos
                    .treeAt(c.orgId(), c.projectId(), previous, ProjectConfigFiles.DIR)
                    .<List<TreeEdit>>map(t -> List.of(TreeEdit.tree(ProjectConfigFiles.DIR, t)))
                    .orElse(List.of(TreeEdit.delete(ProjectConfigFiles.DIR)));
        repos.commit(
            c.orgId(),
            c.projectId(),
            ProjectRepos.MAIN,
            null,
            edits,
            Ident.HUB,
            new CommitMessage(
                    "Revert configuration: the change was not stored",
                    "",
                    Ident.HUB.name(),
                    Map.of(),
                    "config.reverted")
                .format());
      } catch (RuntimeException e) {
        log.error(
            "could not undo configuration commit {} of project {}: {}",
            c.result().commitName(),
            c.projectId(),
            e.toString());
      }
    }
  }
}
