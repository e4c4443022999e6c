package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.activities.generation.GenerationRow;
import dev.gitopshq.hub.delivery.GenerationLauncher;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.generation.GenerationResult;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Starts a project's current revision's generation again, by hand. */
@Service
public class GenerationRetry {
  private final GenerationMapper generations;
  private final GenerationLauncher launcher;
  private final AuditLog audit;
  private final TransactionTemplate tx;

  public GenerationRetry(
      GenerationMapper generations,
      GenerationLauncher launcher,
      AuditLog audit,
      PlatformTransactionManager transactions) {
    this.generations = generations;
    this.launcher = launcher;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
  }

  /**
   * Clears a failed generation of the current revision (or finds none started) and starts it.
   *
   * @return the revision being generated
   * @throws ApiException 404 for an unknown project; 409 when the revision is delivered or still
   *     being generated
   */
  public long regenerate(HubPrincipal caller, UUID projectId) {
    UUID org = caller.orgId();
    long revision =
        tx.execute(
            t -> {
              GenerationMapper.ProjectRevisions p =
                  generations
                      .lockProject(org, projectId)
                      .orElseThrow(() -> ApiException.notFound("project " + projectId));
              long rev = p.configRevision();
              Optional<GenerationRow> g = generations.findByRevision(org, projectId, rev);
              if (g.isPresent() && GenerationResult.FAILED.equals(g.get().status())) {
                generations.deleteFailed(org, g.get().id());
              } else if (g.isPresent()) {
                throw ApiException.conflict(
                    "revision "
                        + rev
                        + " is "
                        + (g.get().status().equals("rendering")
                            ? "being generated"
                            : "already " + g.get().status())
                        + "; a new generation starts with the next configuration change");
              } else if (p.generatedRevision() >= rev) {
                throw ApiException.conflict("revision " + rev + " is already delivered");
              }
              Map<String, Object> d = new LinkedHashMap<>();
              d.put("revision", rev);
              d.put("previous", g.map(r -> r.detail()).orElse("never started"));
              audit.record(
                  org, caller.actor(), "delivery.regenerated", "project", projectId.toString(), d);
              return rev;
            });
    // When Temporal is unreachable the catch-up sweep starts it once it is back.
    launcher.launch(org, projectId, revision, "manual", caller.actor().name());
    return revision;
  }
}
