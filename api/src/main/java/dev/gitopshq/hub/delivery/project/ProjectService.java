package dev.gitopshq.hub.delivery.project;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectRow;
import dev.gitopshq.activities.delivery.ProjectSnapshot;
import dev.gitopshq.activities.delivery.ProjectSnapshots;
import dev.gitopshq.activities.git.CommitMessage;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.hub.config.GitProperties;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.ProjectChanges;
import dev.gitopshq.hub.delivery.ProjectChanges.Applied;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.nio.charset.StandardCharsets;
import java.security.SecureRandom;
import java.time.Clock;
import java.time.Instant;
import java.util.HexFormat;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.annotation.Transactional;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Projects: create (with their hosted repository), read, describe, delete; history; webhook
 * secrets.
 */
@Service
public class ProjectService {
  private static final Logger log = LoggerFactory.getLogger(ProjectService.class);
  private static final SecureRandom RANDOM = new SecureRandom();

  private final ProjectMapper projects;
  private final OrgMapper orgs;
  private final ProjectChanges changes;
  private final ProjectSnapshots snapshots;
  private final ProjectRepos repos;
  private final GitProperties git;
  private final SecretBox secrets;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public ProjectService(
      ProjectMapper projects,
      OrgMapper orgs,
      ProjectChanges changes,
      ProjectSnapshots snapshots,
      ProjectRepos repos,
      GitProperties git,
      SecretBox secrets,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.projects = projects;
    this.orgs = orgs;
    this.changes = changes;
    this.snapshots = snapshots;
    this.repos = repos;
    this.git = git;
    this.secrets = secrets;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /** The header that carries the HMAC of an image-update webhook body, signed with this secret. */
  public static final String WEBHOOK_SIGNATURE_HEADER = "X-GitOpsHQ-Signature";

  /**
   * The context a project's webhook secret is sealed under: it opens only in that project's row.
   */
  public static String secretContext(UUID projectId) {
    return "project-webhook:" + projectId;
  }

  public Applied<ProjectRow> create(HubPrincipal caller, ProjectRequests.ProjectCreate req) {
    UUID orgId = caller.orgId();
    UUID id = UUID.randomUUID();
    return changes.create(
        orgId,
        id,
        Author.of(caller),
        () -> {
          if (projects.findByName(orgId, req.name()).isPresent()) {
            throw ApiException.conflict("a project named '" + req.name() + "' already exists");
          }
          Instant now = clock.instant();
          ProjectRow row =
              new ProjectRow(
                  id,
                  orgId,
                  req.name(),
                  req.description() == null ? "" : req.description(),
                  0,
                  0,
                  false,
                  caller.id(),
                  now,
                  now);
          try {
            projects.insert(row);
          } catch (DuplicateKeyException e) {
            throw ApiException.conflict("a project named '" + req.name() + "' already exists");
          }
          audit.record(
              orgId,
              caller.actor(),
              "project.created",
              "project",
              id.toString(),
              Map.of("name", row.name(), "description", row.description()));
          return row;
        });
  }

  @Transactional(readOnly = true)
  public List<ProjectRow> list(UUID orgId) {
    return projects.list(orgId);
  }

  @Transactional(readOnly = true)
  public ProjectRow get(UUID orgId, UUID id) {
    return projects.findById(orgId, id).orElseThrow(() -> ApiException.notFound("project " + id));
  }

  /** The description is not part of config/: it changes the row only. */
  @Transactional
  public ProjectRow describe(HubPrincipal caller, UUID id, String description) {
    ProjectRow p = get(caller.orgId(), id);
    projects.setDescription(caller.orgId(), id, description, clock.instant());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "project.updated",
        "project",
        id.toString(),
        Map.of(
            "name", p.name(), "description", Map.of("from", p.description(), "to", description)));
    return get(caller.orgId(), id);
  }

  /** Deletes the project's rows, then its repository. */
  public void delete(HubPrincipal caller, UUID id) {
    UUID orgId = caller.orgId();
    ProjectRow p =
        tx.execute(
            status -> {
              ProjectRow row =
                  projects
                      .lock(orgId, id)
                      .orElseThrow(() -> ApiException.notFound("project " + id));
              projects.delete(orgId, id);
              audit.record(
                  orgId,
                  caller.actor(),
                  "project.deleted",
                  "project",
                  id.toString(),
                  Map.of("name", row.name(), "configRevision", row.configRevision()));
              return row;
            });
    try {
      repos.delete(orgId, id);
    } catch (RuntimeException e) {
      log.warn(
          "project {} ({}) is deleted but its repository could not be removed: {}",
          p.name(),
          id,
          e.toString());
    }
  }

  public String cloneUrl(UUID orgId, String project) {
    String slug = orgs.findById(orgId).map(o -> o.slug()).orElse(orgId.toString());
    return git.cloneUrl(slug, project);
  }

  @Transactional(readOnly = true)
  public ProjectSnapshot snapshot(UUID orgId, UUID id) {
    return snapshots.find(orgId, id).orElseThrow(() -> ApiException.notFound("project " + id));
  }

  /** A commit of the project's main branch, read from its message's trailers. */
  public record CommitView(
      String id,
      String author,
      Instant at,
      String description,
      Map<String, String> scope,
      String change,
      List<String> parents) {}

  public List<CommitView> commits(UUID orgId, UUID id, int limit) {
    get(orgId, id);
    return repos.log(orgId, id, ProjectRepos.MAIN, limit).stream()
        .map(ProjectService::view)
        .toList();
  }

  static CommitView view(ProjectRepos.CommitInfo c) {
    String[] lines = c.message().split("\n", -1);
    String description = lines.length == 0 ? "" : lines[0];
    String author = c.author();
    String change = "";
    Map<String, String> scope = new LinkedHashMap<>();
    for (String line : lines) {
      if (line.startsWith(CommitMessage.AUTHOR + ": ")) {
        author = line.substring(CommitMessage.AUTHOR.length() + 2).strip();
      } else if (line.startsWith(CommitMessage.CHANGE + ": ")) {
        change = line.substring(CommitMessage.CHANGE.length() + 2).strip();
      } else if (line.startsWith(CommitMessage.SCOPE + ": ")) {
        for (String pair : line.substring(CommitMessage.SCOPE.length() + 2).strip().split(" ")) {
          int eq = pair.indexOf('=');
          if (eq > 0) {
            scope.put(pair.substring(0, eq), pair.substring(eq + 1));
          }
        }
      }
    }
    return new CommitView(c.id(), author, c.at(), description, scope, change, c.parents());
  }

  /**
   * Sets a new image-update webhook secret (32 random bytes, hex) and returns it: it is shown this
   * once and stored only sealed ({@link SecretBox}).
   */
  @Transactional
  public String newWebhookSecret(HubPrincipal caller, UUID id) {
    ProjectRow p = get(caller.orgId(), id);
    byte[] raw = new byte[32];
    RANDOM.nextBytes(raw);
    String secret = HexFormat.of().formatHex(raw);
    byte[] sealed = secrets.seal(secret.getBytes(StandardCharsets.US_ASCII), secretContext(id));
    projects.setWebhookSecret(caller.orgId(), id, sealed, clock.instant());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "project.webhook_secret_set",
        "project",
        id.toString(),
        Map.of("name", p.name(), "replaced", p.hasWebhookSecret()));
    return secret;
  }
}
