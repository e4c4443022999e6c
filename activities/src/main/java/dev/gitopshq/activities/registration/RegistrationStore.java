package dev.gitopshq.activities.registration;

import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.springframework.transaction.annotation.Transactional;

/**
 * Issues and consumes cluster registration tokens. PostgreSQL is the authority on single use and
 * expiry: a token is consumed by one conditional UPDATE, so of many concurrent {@code Register}
 * calls with one token exactly one wins, and an expired token fails even if no workflow ever marked
 * it.
 */
public class RegistrationStore {
  /** How long a registration token works (seed: one hour). */
  public static final Duration REGISTRATION_TOKEN_TTL = Duration.ofHours(1);

  private final ClusterMapper clusters;
  private final ClusterTokenMapper tokens;
  private final AuditLog audit;
  private final Clock clock;

  public RegistrationStore(
      ClusterMapper clusters, ClusterTokenMapper tokens, AuditLog audit, Clock clock) {
    this.clusters = clusters;
    this.tokens = tokens;
    this.audit = audit;
    this.clock = clock;
  }

  /**
   * Issues a registration token for a cluster, ending any earlier unused one, and audits it. Joins
   * the caller's transaction (the cluster's creation, or a join-token request).
   */
  @Transactional
  public IssuedRegistrationToken issue(UUID orgId, UUID clusterId, Actor actor) {
    return issue(orgId, clusterId, actor, null);
  }

  /**
   * Issues a registration token as {@link #issue(UUID, UUID, Actor)} does.
   *
   * @param requireAcceptance whether the agent that registers with it waits for an admin's
   *     acceptance; null follows the organization's setting
   */
  @Transactional
  public IssuedRegistrationToken issue(
      UUID orgId, UUID clusterId, Actor actor, Boolean requireAcceptance) {
    Instant now = clock.instant();
    List<UUID> superseded = tokens.supersedeRegistrationTokens(orgId, clusterId, now);
    Tokens.IssuedToken token = Tokens.issue(TokenKind.REGISTRATION);
    UUID tokenId = UUID.randomUUID();
    Instant expiresAt = now.plus(REGISTRATION_TOKEN_TTL);
    tokens.insert(
        new ClusterTokenRow(
            tokenId,
            orgId,
            clusterId,
            "registration",
            token.hash(),
            "active",
            now,
            expiresAt,
            null,
            null));
    if (requireAcceptance != null) {
      tokens.setRequireAcceptance(orgId, tokenId, requireAcceptance);
    }
    // Held until this transaction commits: the registration workflow waits for it (lockIssue).
    tokens.lockIssue(tokenId);
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("tokenId", tokenId.toString());
    details.put("expiresAt", expiresAt.toString());
    details.put("superseded", superseded.stream().map(UUID::toString).toList());
    if (requireAcceptance != null) {
      details.put("requireAcceptance", requireAcceptance);
    }
    audit.record(
        orgId,
        actor,
        "cluster.registration_token.issued",
        "cluster",
        clusterId.toString(),
        details);
    return new IssuedRegistrationToken(tokenId, token.value(), expiresAt, superseded);
  }

  /**
   * What the agent says about itself in {@code Register}.
   *
   * @param identity what it says about its cluster; null from agents that do not report it
   */
  public record AgentDescription(
      String clusterName,
      String agentVersion,
      List<String> capabilities,
      ReportedIdentity identity) {
    public AgentDescription(String clusterName, String agentVersion, List<String> capabilities) {
      this(clusterName, agentVersion, capabilities, null);
    }
  }

  /**
   * The cluster's identity as its agent reported it (validated by the caller).
   *
   * @param apiServerSha256 SHA-256 of the API server URL, 64 lowercase hex, or empty
   * @param nodeCount the number of nodes, 0 when unknown
   * @param kubernetesVersion the API server's version, or empty
   * @param labels the cluster's labels as the agent's chart sets them (kept apart from the labels
   *     set in the hub)
   */
  public record ReportedIdentity(
      String apiServerSha256, int nodeCount, String kubernetesVersion, Map<String, String> labels) {
    public ReportedIdentity {
      labels = labels == null ? Map.of() : Map.copyOf(labels);
    }

    public ReportedIdentity(String apiServerSha256, int nodeCount, String kubernetesVersion) {
      this(apiServerSha256, nodeCount, kubernetesVersion, Map.of());
    }

    /** The identity as the audit log records it. */
    public Map<String, Object> details() {
      Map<String, Object> d = new LinkedHashMap<>();
      d.put("apiServerSha256", apiServerSha256);
      d.put("nodeCount", nodeCount);
      d.put("kubernetesVersion", kubernetesVersion);
      d.put("labels", new TreeMap<>(labels));
      return d;
    }
  }

  /**
   * Consumes a registration token and issues the cluster's agent token, in one transaction. Earlier
   * agent tokens of the cluster are revoked: a cluster has one agent identity at a time, and
   * registering again (a reinstall) replaces it.
   *
   * @return empty for any token that is not a live registration token (unknown, expired, consumed,
   *     superseded): the caller answers all of them alike
   * @throws ClusterNameMismatchException if the agent names another cluster (nothing consumed)
   */
  @Transactional
  public Optional<AgentRegistration> consume(String registrationToken, AgentDescription agent) {
    if (!TokenKind.REGISTRATION.matches(registrationToken)) {
      return Optional.empty();
    }
    Instant now = clock.instant();
    Optional<ClusterTokenRow> consumed =
        tokens.consumeRegistration(Tokens.sha256Hex(registrationToken), now);
    if (consumed.isEmpty()) {
      return Optional.empty();
    }
    ClusterTokenRow reg = consumed.get();
    ClusterRow cluster =
        clusters
            .findById(reg.orgId(), reg.clusterId())
            .orElseThrow(() -> new IllegalStateException("token without cluster " + reg.id()));
    if (agent.clusterName() != null
        && !agent.clusterName().isBlank()
        && !agent.clusterName().equals(cluster.name())) {
      // Thrown inside the transaction: the consumption above rolls back.
      throw new ClusterNameMismatchException(cluster.name(), agent.clusterName());
    }

    Tokens.IssuedToken agentToken = Tokens.issue(TokenKind.AGENT);
    UUID agentTokenId = UUID.randomUUID();
    tokens.insert(
        new ClusterTokenRow(
            agentTokenId,
            reg.orgId(),
            reg.clusterId(),
            "agent",
            agentToken.hash(),
            "active",
            now,
            null,
            null,
            null));
    List<UUID> revoked =
        tokens.revokeAgentTokensExcept(reg.orgId(), reg.clusterId(), agentTokenId, now);
    clusters.markRegistered(
        reg.orgId(), reg.clusterId(), agent.agentVersion(), agent.capabilities(), now);
    if (agent.identity() != null) {
      ReportedIdentity id = agent.identity();
      clusters.reportIdentity(
          reg.orgId(),
          reg.clusterId(),
          id.apiServerSha256().isEmpty() ? null : id.apiServerSha256(),
          id.nodeCount(),
          id.kubernetesVersion(),
          now);
      clusters.reportLabels(reg.orgId(), reg.clusterId(), id.labels());
    }
    // Hub acceptance: the new agent waits for an admin when its token (or else the organization)
    // says so; a registration that needs none clears an earlier decision.
    boolean acceptanceRequired = tokens.acceptanceRequired(reg.orgId(), reg.id());
    clusters.requireAcceptance(reg.orgId(), reg.clusterId(), acceptanceRequired, reg.id());

    Map<String, Object> details = new LinkedHashMap<>();
    details.put("registrationTokenId", reg.id().toString());
    details.put("agentTokenId", agentTokenId.toString());
    details.put("agentVersion", agent.agentVersion());
    details.put("capabilities", agent.capabilities());
    details.put("revokedAgentTokens", revoked.stream().map(UUID::toString).toList());
    details.put("acceptanceRequired", acceptanceRequired);
    if (agent.identity() != null) {
      details.put("identity", agent.identity().details());
    }
    audit.record(
        reg.orgId(),
        Actor.agent(cluster.id().toString(), cluster.name()),
        "cluster.registered",
        "cluster",
        cluster.id().toString(),
        details);
    return Optional.of(
        new AgentRegistration(
            reg.orgId(),
            reg.clusterId(),
            cluster.name(),
            reg.id(),
            agentTokenId,
            agentToken.value(),
            revoked,
            acceptanceRequired));
  }
}
