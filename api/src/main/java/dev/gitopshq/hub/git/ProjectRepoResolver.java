package dev.gitopshq.hub.git;

import dev.gitopshq.activities.git.NoSuchRepositoryException;
import dev.gitopshq.activities.git.ProjectRepos;
import jakarta.servlet.http.HttpServletRequest;
import org.eclipse.jgit.errors.RepositoryNotFoundException;
import org.eclipse.jgit.lib.Repository;
import org.eclipse.jgit.transport.resolver.RepositoryResolver;

/**
 * Opens the repository {@link GitAuthFilter} allowed for this request, by the project's ids: the
 * name in the URL is never turned into a path. A request the filter did not allow, or whose name
 * differs from the one it checked, finds nothing (404).
 */
class ProjectRepoResolver implements RepositoryResolver<HttpServletRequest> {
  private final ProjectRepos repos;

  ProjectRepoResolver(ProjectRepos repos) {
    this.repos = repos;
  }

  @Override
  public Repository open(HttpServletRequest req, String name) throws RepositoryNotFoundException {
    if (!(req.getAttribute(GitAuthFilter.TARGET) instanceof GitAccess.Target target)
        || !target.name().equals(name)) {
      throw new RepositoryNotFoundException(name);
    }
    Repository repo;
    try {
      repo = repos.open(target.orgId(), target.projectId());
    } catch (NoSuchRepositoryException e) {
      throw new RepositoryNotFoundException(name, e);
    }
    // ProjectRepos keeps the repository open; JGit closes it after the request, so count this use.
    repo.incrementOpen();
    return repo;
  }
}
