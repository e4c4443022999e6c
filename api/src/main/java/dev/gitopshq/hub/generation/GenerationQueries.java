package dev.gitopshq.hub.generation;

import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.generation.GenerationMapper;
import dev.gitopshq.activities.generation.GenerationRow;
import dev.gitopshq.hub.web.ApiException;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** A project's generations, read for the API: another organization's project is a 404. */
@Service
public class GenerationQueries {
  private final GenerationMapper generations;
  private final ProjectMapper projects;

  public GenerationQueries(GenerationMapper generations, ProjectMapper projects) {
    this.generations = generations;
    this.projects = projects;
  }

  @Transactional(readOnly = true)
  public List<GenerationRow> list(UUID orgId, UUID projectId, int limit) {
    projects
        .findById(orgId, projectId)
        .orElseThrow(() -> ApiException.notFound("project " + projectId));
    return generations.list(orgId, projectId, limit);
  }

  @Transactional(readOnly = true)
  public Optional<GenerationRow> find(UUID orgId, UUID projectId, long revision) {
    return generations.findByRevision(orgId, projectId, revision);
  }
}
