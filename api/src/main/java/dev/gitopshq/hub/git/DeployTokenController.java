package dev.gitopshq.hub.git;

import dev.gitopshq.activities.git.DeployTokenRow;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Duration;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/projects/{id}/deploy-tokens}: read-only credentials for a project's hosted
 * repository, for Argo CD, Flux or a plain {@code git clone}.
 */
@RestController
@RequestMapping("/api/v2/projects/{projectId}/deploy-tokens")
public class DeployTokenController {
  /** The user name shown with a token; Git needs one, the hub ignores it. */
  static final String USERNAME = "deploy";

  private final DeployTokenService service;

  public DeployTokenController(DeployTokenService service) {
    this.service = service;
  }

  record CreateDeployToken(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name, Integer expiresInDays) {}

  /** The response that issues a token: the only time {@code token} is shown. */
  record IssuedView(
      String id,
      String name,
      String token,
      Instant createdAt,
      Instant expiresAt,
      String cloneUrl,
      String username) {}

  /** A token's metadata, never its value or hash. */
  record TokenView(
      String id,
      String name,
      Instant createdAt,
      Instant expiresAt,
      Instant revokedAt,
      Instant lastUsedAt) {
    static TokenView of(DeployTokenRow t) {
      return new TokenView(
          t.id().toString(), t.name(), t.createdAt(), t.expiresAt(), t.revokedAt(), t.lastUsedAt());
    }
  }

  record TokenList(List<TokenView> items) {}

  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  IssuedView create(@PathVariable UUID projectId, @RequestBody CreateDeployToken body) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks c = new Checks();
    c.displayName("name", body.name(), 100, true);
    Integer days = body.expiresInDays();
    if (days != null && (days < 1 || days > 3650)) {
      c.fail("expiresInDays", "must be between 1 and 3650");
    }
    c.throwIfInvalid();
    DeployTokenService.IssuedDeployToken t =
        service.issue(caller, projectId, body.name(), days == null ? null : Duration.ofDays(days));
    return new IssuedView(
        t.row().id().toString(),
        t.row().name(),
        t.token(),
        t.row().createdAt(),
        t.row().expiresAt(),
        t.cloneUrl(),
        USERNAME);
  }

  @GetMapping
  TokenList list(@PathVariable UUID projectId) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_READ);
    return new TokenList(
        service.list(caller.orgId(), projectId).stream().map(TokenView::of).toList());
  }

  @DeleteMapping("/{tokenId}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void revoke(@PathVariable UUID projectId, @PathVariable UUID tokenId) {
    HubPrincipal caller = Authz.require(Permission.PROJECTS_ADMIN);
    service.revoke(caller, projectId, tokenId);
  }
}
