package dev.gitopshq.hub.git;

import dev.gitopshq.activities.git.DeployTokenMapper;
import dev.gitopshq.activities.git.HostedRepoMapper;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.security.TokenAuthenticator;
import dev.gitopshq.hub.team.Access;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DataAccessException;
import org.springframework.stereotype.Component;

/**
 * Decides who may read a hosted repository: a deploy token of that project, or an API token of the
 * project's organization whose caller holds {@code projects:read}.
 */
@Component
public class GitAccess {
  /** How often a deploy token's last use is written, at most. */
  static final Duration TOUCH_INTERVAL = Duration.ofMinutes(1);

  private static final Logger log = LoggerFactory.getLogger(GitAccess.class);

  private final DeployTokenMapper deployTokens;
  private final HostedRepoMapper repos;
  private final TokenAuthenticator apiTokens;
  private final Clock clock;

  /** When this replica last wrote each token's last use: skips the UPDATE on every poll. */
  private final ConcurrentMap<UUID, Instant> touched = new ConcurrentHashMap<>();

  private final Access access;

  public GitAccess(
      DeployTokenMapper deployTokens,
      HostedRepoMapper repos,
      TokenAuthenticator apiTokens,
      Clock clock,
      Access access) {
    this.access = access;
    this.deployTokens = deployTokens;
    this.repos = repos;
    this.apiTokens = apiTokens;
    this.clock = clock;
  }

  /** Who presented a token: a deploy token, or a member or service account. */
  public sealed interface Caller {
    /** A deploy token, good for one project. */
    record Deploy(UUID tokenId, UUID orgId, UUID projectId) implements Caller {}

    /** An API token. */
    record Api(HubPrincipal principal) implements Caller {}
  }

  /** A project's repository that a request may read. */
  public record Target(UUID orgId, UUID projectId, String name) {}

  /** The outcome of {@link #check}; the filter turns it into a status code. */
  public sealed interface Decision {
    /** The token is missing, unknown, expired or revoked. */
    record Unauthenticated() implements Decision {}

    /** No such repository for this caller (or one it must not learn about). */
    record NotFound() implements Decision {}

    /** The caller belongs to the organization but lacks {@code projects:read}. */
    record Forbidden() implements Decision {}

    record Allowed(Caller caller, Target target) implements Decision {}
  }

  /** The caller a token speaks for, if it is live. */
  public Optional<Caller> authenticate(String token) {
    if (token == null || token.isEmpty()) {
      return Optional.empty();
    }
    if (token.startsWith(TokenKind.DEPLOY.prefix())) {
      if (!TokenKind.DEPLOY.matches(token)) {
        return Optional.empty();
      }
      return deployTokens
          .authenticate(Tokens.sha256Hex(token), clock.instant())
          .map(t -> new Caller.Deploy(t.id(), t.orgId(), t.projectId()));
    }
    return apiTokens.authenticate(token).map(Caller.Api::new);
  }

  /** Whether the holder of {@code token} may read the repository {@code request} names. */
  public Decision check(String token, GitRequest request) {
    Optional<Caller> caller = authenticate(token);
    if (caller.isEmpty()) {
      return new Decision.Unauthenticated();
    }
    Optional<UUID> org = repos.orgIdBySlug(request.orgSlug());
    switch (caller.get()) {
      case Caller.Deploy d -> {
        if (org.isEmpty() || !org.get().equals(d.orgId())) {
          return new Decision.NotFound();
        }
        Optional<UUID> project = repos.projectId(d.orgId(), request.project());
        if (project.isEmpty() || !project.get().equals(d.projectId())) {
          return new Decision.NotFound();
        }
        touch(d);
        return new Decision.Allowed(
            d, new Target(d.orgId(), d.projectId(), request.repositoryName()));
      }
      case Caller.Api a -> {
        HubPrincipal p = a.principal();
        if (org.isEmpty() || !org.get().equals(p.orgId())) {
          return new Decision.NotFound();
        }
        if (!p.can(Permission.PROJECTS_READ)) {
          return new Decision.Forbidden();
        }
        // A member or viewer reads a project's repository only through a grant on the project.
        return repos
            .projectId(p.orgId(), request.project())
            .filter(id -> access.projectRole(p, id).isPresent())
            .<Decision>map(
                id -> new Decision.Allowed(a, new Target(p.orgId(), id, request.repositoryName())))
            .orElseGet(Decision.NotFound::new);
      }
    }
  }

  /** Records a deploy token's use, at most once per {@link #TOUCH_INTERVAL} and replica. */
  private void touch(Caller.Deploy d) {
    Instant now = clock.instant();
    Instant last = touched.get(d.tokenId());
    if (last != null && last.isAfter(now.minus(TOUCH_INTERVAL))) {
      return;
    }
    touched.put(d.tokenId(), now);
    try {
      // The condition in the UPDATE keeps other replicas from writing within the interval too.
      deployTokens.touch(d.orgId(), d.tokenId(), now, now.minus(TOUCH_INTERVAL));
    } catch (DataAccessException e) {
      // Bookkeeping must not fail a fetch that was authorized.
      log.warn("could not record the use of deploy token {}: {}", d.tokenId(), e.getMessage());
    }
  }
}
