package dev.gitopshq.hub.git;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.git.DeployTokenMapper;
import dev.gitopshq.activities.git.DeployTokenRow;
import dev.gitopshq.activities.git.HostedRepoMapper;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.hub.config.GitProperties;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/** Issues, lists and revokes projects' deploy tokens; every change is audited. */
@Service
public class DeployTokenService {
  private final DeployTokenMapper tokens;
  private final HostedRepoMapper repos;
  private final GitProperties git;
  private final AuditLog audit;
  private final Clock clock;

  public DeployTokenService(
      DeployTokenMapper tokens,
      HostedRepoMapper repos,
      GitProperties git,
      AuditLog audit,
      Clock clock) {
    this.tokens = tokens;
    this.repos = repos;
    this.git = git;
    this.audit = audit;
    this.clock = clock;
  }

  /** A token just issued: the plaintext is returned once and never stored. */
  public record IssuedDeployToken(DeployTokenRow row, String token, String cloneUrl) {
    @Override
    public String toString() {
      return "IssuedDeployToken[id=" + row.id() + "]";
    }
  }

  @Transactional
  public IssuedDeployToken issue(HubPrincipal caller, UUID projectId, String name, Duration ttl) {
    String project = projectName(caller.orgId(), projectId);
    String org = repos.orgSlug(caller.orgId()).orElseThrow();
    Instant now = clock.instant();
    Tokens.IssuedToken token = Tokens.issue(TokenKind.DEPLOY);
    DeployTokenRow row =
        new DeployTokenRow(
            UUID.randomUUID(),
            caller.orgId(),
            projectId,
            name,
            token.hash(),
            caller.id(),
            now,
            ttl == null ? null : now.plus(ttl),
            null,
            null);
    tokens.insert(row);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("projectId", projectId.toString());
    details.put("project", project);
    details.put("tokenId", row.id().toString());
    details.put("name", name);
    details.put("expiresAt", row.expiresAt() == null ? null : row.expiresAt().toString());
    audit.record(
        caller.orgId(),
        caller.actor(),
        "deploy_token.issued",
        "deploy_token",
        row.id().toString(),
        details);
    return new IssuedDeployToken(row, token.value(), git.cloneUrl(org, project));
  }

  @Transactional(readOnly = true)
  public List<DeployTokenRow> list(UUID orgId, UUID projectId) {
    projectName(orgId, projectId);
    return tokens.list(orgId, projectId);
  }

  /** Revokes a token; revoking one that already is changes nothing (and audits nothing). */
  @Transactional
  public void revoke(HubPrincipal caller, UUID projectId, UUID tokenId) {
    String project = projectName(caller.orgId(), projectId);
    DeployTokenRow row =
        tokens
            .find(caller.orgId(), projectId, tokenId)
            .orElseThrow(() -> ApiException.notFound("deploy token " + tokenId));
    if (tokens.revoke(caller.orgId(), projectId, tokenId, clock.instant()) == 1) {
      Map<String, Object> details = new LinkedHashMap<>();
      details.put("projectId", projectId.toString());
      details.put("project", project);
      details.put("tokenId", tokenId.toString());
      details.put("name", row.name());
      audit.record(
          caller.orgId(),
          caller.actor(),
          "deploy_token.revoked",
          "deploy_token",
          tokenId.toString(),
          details);
    }
  }

  private String projectName(UUID orgId, UUID projectId) {
    return repos
        .projectName(orgId, projectId)
        .orElseThrow(() -> ApiException.notFound("project " + projectId));
  }
}
