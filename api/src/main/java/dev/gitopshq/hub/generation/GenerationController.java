package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.generation.GenerationRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.generation.GenerationRequest;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/** {@code /api/v2/projects/{id}/generations}: what delivery generation did for each revision. */
@RestController
public class GenerationController {
  private final GenerationQueries generations;
  private final GenerationRetry retry;

  public GenerationController(GenerationQueries generations, GenerationRetry retry) {
    this.generations = generations;
    this.retry = retry;
  }

  record Started(long revision, String workflowId) {}

  /**
   * Generates the project's current revision again when its generation failed for a reason outside
   * the configuration (a disk that was full, a chart registry row restored), or starts it when it
   * never started.
   */
  @PostMapping("/api/v2/projects/{id}/generations")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Started regenerate(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_WRITE);
    long revision = retry.regenerate(caller, id);
    return new Started(revision, GenerationRequest.workflowId(id.toString(), revision));
  }

  record Generation(
      String id,
      long revision,
      String status,
      String configCommit,
      String commit,
      int units,
      int changedFiles,
      String trigger,
      String actor,
      String detail,
      Instant startedAt,
      Instant finishedAt,
      String workflowId,
      Integer rendered,
      Integer reused) {
    static Generation of(GenerationRow g) {
      return new Generation(
          g.id().toString(),
          g.revision(),
          g.status(),
          g.configCommit(),
          g.commit(),
          g.units(),
          g.changedPaths(),
          g.trigger(),
          g.actor(),
          g.detail(),
          g.startedAt(),
          g.finishedAt(),
          GenerationRequest.workflowId(g.projectId().toString(), g.revision()),
          g.renderedUnits(),
          g.reusedUnits());
    }
  }

  record Generations(List<Generation> items) {}

  @GetMapping("/api/v2/projects/{id}/generations")
  Generations list(
      @PathVariable UUID id, @RequestParam(name = "limit", defaultValue = "50") int limit) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    if (limit < 1 || limit > 500) {
      throw ApiException.invalid("limit", "must be between 1 and 500");
    }
    // Another organization's project (or none) is a 404, not an empty list.
    return new Generations(
        generations.list(caller.orgId(), id, limit).stream().map(Generation::of).toList());
  }

  @GetMapping("/api/v2/projects/{id}/generations/{revision}")
  Generation get(@PathVariable UUID id, @PathVariable long revision) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return generations
        .find(caller.orgId(), id, revision)
        .map(Generation::of)
        .orElseThrow(
            () ->
                ApiException.notFound(
                    "no generation of revision " + revision + " in this project"));
  }
}
