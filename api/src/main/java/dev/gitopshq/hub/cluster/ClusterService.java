package dev.gitopshq.hub.cluster;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterRow;
import dev.gitopshq.activities.registration.IssuedRegistrationToken;
import dev.gitopshq.activities.registration.RegistrationStore;
import dev.gitopshq.hub.chartrepo.AgentChartRepository;
import dev.gitopshq.hub.config.GitProperties;
import dev.gitopshq.hub.config.HubProperties;
import dev.gitopshq.hub.config.TokenProperties;
import dev.gitopshq.hub.delivery.Author;
import dev.gitopshq.hub.delivery.project.EnvironmentSelectors;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.workflows.TaskQueues;
import dev.gitopshq.workflows.registration.RegistrationRequest;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import dev.gitopshq.workflows.rotation.RotationRequest;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflow;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowOptions;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.TreeMap;
import java.util.UUID;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;
import org.springframework.dao.DuplicateKeyException;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * Registers clusters and issues their join tokens. Each issuance starts a registration workflow
 * inside the same transaction as the rows it follows: if starting the workflow fails, nothing is
 * written; if the commit fails after the start, the workflow finds no token and ends as abandoned.
 */
@Service
public class ClusterService {
  private static final Logger log = LoggerFactory.getLogger(ClusterService.class);

  private final ClusterMapper clusters;
  private final RegistrationStore registration;
  private final AuditLog audit;
  private final WorkflowClient temporal;
  private final HubProperties props;
  private final TokenProperties tokenProps;
  private final RotationSchedules schedules;
  private final Clock clock;

  private final GitProperties git;
  private final AgentChartRepository agentChart;
  private final EnvironmentSelectors selectors;

  public ClusterService(
      ClusterMapper clusters,
      RegistrationStore registration,
      AuditLog audit,
      WorkflowClient temporal,
      HubProperties props,
      TokenProperties tokenProps,
      RotationSchedules schedules,
      Clock clock,
      GitProperties git,
      AgentChartRepository agentChart,
      EnvironmentSelectors selectors) {
    this.selectors = selectors;
    this.git = git;
    this.agentChart = agentChart;
    this.clusters = clusters;
    this.registration = registration;
    this.audit = audit;
    this.temporal = temporal;
    this.props = props;
    this.tokenProps = tokenProps;
    this.schedules = schedules;
    this.clock = clock;
  }

  /** A new cluster with its first registration token. */
  public record Registered(
      ClusterRow cluster, IssuedRegistrationToken token, String installCommand) {}

  @Transactional
  public Registered create(HubPrincipal caller, ClusterRequests.Create req) {
    if (clusters.findByName(caller.orgId(), req.name()).isPresent()) {
      throw ApiException.conflict("a cluster named '" + req.name() + "' already exists");
    }
    Instant now = clock.instant();
    Map<String, String> labels = req.labels() == null ? Map.of() : new TreeMap<>(req.labels());
    ClusterRow row =
        new ClusterRow(
            UUID.randomUUID(),
            caller.orgId(),
            req.name(),
            nz(req.displayName()),
            nz(req.provider()),
            nz(req.region()),
            nz(req.environment()),
            labels,
            null,
            List.of(),
            props.agent().heartbeatIntervalSeconds(),
            null,
            null,
            null,
            null,
            caller.id(),
            now,
            now,
            true,
            null,
            null,
            null,
            null,
            null,
            null);
    try {
      clusters.insert(row);
    } catch (DuplicateKeyException e) {
      // Another request took the name between our check and the insert.
      throw ApiException.conflict("a cluster named '" + req.name() + "' already exists");
    }
    Map<String, Object> details = new LinkedHashMap<>();
    details.put("name", row.name());
    details.put("displayName", row.displayName());
    details.put("provider", row.provider());
    details.put("region", row.region());
    details.put("environment", row.environment());
    details.put("labels", labels);
    audit.record(
        caller.orgId(), caller.actor(), "cluster.created", "cluster", row.id().toString(), details);
    IssuedRegistrationToken token = issueToken(caller, row, req.requireAcceptance());
    ClusterRow stored = clusters.findById(caller.orgId(), row.id()).orElseThrow();
    return new Registered(stored, token, installCommand(stored, token));
  }

  /** A new registration token for an existing cluster; earlier unused ones stop working. */
  @Transactional
  public Registered joinToken(HubPrincipal caller, UUID clusterId) {
    return joinToken(caller, clusterId, null);
  }

  /**
   * A new registration token, as {@link #joinToken(HubPrincipal, UUID)}.
   *
   * @param requireAcceptance whether its agent waits for an admin's acceptance; null: the
   *     organization's setting
   */
  @Transactional
  public Registered joinToken(HubPrincipal caller, UUID clusterId, Boolean requireAcceptance) {
    ClusterRow cluster = get(caller.orgId(), clusterId);
    IssuedRegistrationToken token = issueToken(caller, cluster, requireAcceptance);
    for (UUID old : token.superseded()) {
      signalSuperseded(old, token.tokenId());
    }
    return new Registered(cluster, token, installCommand(cluster, token));
  }

  /**
   * Changes a cluster's display name and/or labels. Labels decide which environments' selectors
   * bind the cluster, so the change runs across the organization's projects: each project whose
   * environments the cluster joins or leaves gets one configuration commit naming the change.
   */
  public ClusterRow update(HubPrincipal caller, UUID clusterId, ClusterRequests.Update req) {
    selectors.clusterChanged(
        caller.orgId(),
        Author.of(caller),
        "cluster labels changed by " + caller.actor().name(),
        clusterId,
        false,
        () -> {
          updateMetadata(caller, clusterId, req);
          return null;
        },
        () -> {});
    return get(caller.orgId(), clusterId);
  }

  private void updateMetadata(HubPrincipal caller, UUID clusterId, ClusterRequests.Update req) {
    ClusterRow before = get(caller.orgId(), clusterId);
    String displayName = req.displayName() != null ? req.displayName() : before.displayName();
    Map<String, String> labels =
        req.labels() != null ? new TreeMap<>(req.labels()) : before.labels();
    clusters.updateMetadata(caller.orgId(), clusterId, displayName, labels, clock.instant());
    Map<String, Object> details = new LinkedHashMap<>();
    if (req.displayName() != null) {
      details.put("displayName", Map.of("from", before.displayName(), "to", displayName));
    }
    if (req.labels() != null) {
      details.put("labels", Map.of("from", before.labels(), "to", labels));
    }
    audit.record(
        caller.orgId(),
        caller.actor(),
        "cluster.updated",
        "cluster",
        clusterId.toString(),
        details);
  }

  /** Starts a token rotation workflow; returns its rotation id. */
  public String rotateToken(HubPrincipal caller, UUID clusterId) {
    ClusterRow cluster = get(caller.orgId(), clusterId);
    if (cluster.registeredAt() == null) {
      throw ApiException.conflict(
          "cluster '" + cluster.name() + "' has no agent yet; nothing to rotate");
    }
    if (cluster.connectedReplica() == null) {
      throw ApiException.conflict(
          "the agent of cluster '" + cluster.name() + "' is not connected; rotate when it is");
    }
    String rotationId = UUID.randomUUID().toString();
    WorkflowClient.start(
        temporal.newWorkflowStub(
                TokenRotationWorkflow.class,
                WorkflowOptions.newBuilder()
                    .setTaskQueue(TaskQueues.HUB)
                    .setWorkflowId(RotationRequest.workflowId(rotationId))
                    .build())
            ::rotate,
        new RotationRequest(
            caller.orgId().toString(),
            clusterId.toString(),
            rotationId,
            caller.name(),
            tokenProps.rotationAckTimeout().toSeconds(),
            tokenProps.rotationGrace().toSeconds()));
    return rotationId;
  }

  /**
   * Deregisters a cluster: deletes it with its tokens (every stream opened with them is closed
   * within a sweep, about two seconds) and its commands. The audit log keeps the record. Approval
   * policies that name the cluster stay (attachments are by name: a cluster registered again under
   * the name is governed by them). Environments that bind it by selector let it go, each project
   * with a configuration commit; an environment that names it refuses (409) until it is removed
   * there.
   */
  public void delete(HubPrincipal caller, UUID clusterId) {
    ClusterRow cluster = get(caller.orgId(), clusterId);
    selectors.clusterChanged(
        caller.orgId(),
        Author.of(caller),
        "cluster " + cluster.name() + " deleted by " + caller.actor().name(),
        clusterId,
        true,
        () -> {
          // Deleting would silently drop it from projects' configuration without a commit.
          List<String> bound = clusters.deliveryBindings(caller.orgId(), clusterId);
          if (!bound.isEmpty()) {
            throw ApiException.conflict(
                "cluster "
                    + cluster.name()
                    + " receives deliveries of "
                    + String.join(", ", bound)
                    + " (project/environment); remove it from those environments first");
          }
          return null;
        },
        () -> {
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("name", cluster.name());
          d.put(
              "registeredAt",
              cluster.registeredAt() == null ? null : cluster.registeredAt().toString());
          audit.record(
              caller.orgId(),
              caller.actor(),
              "cluster.deleted",
              "cluster",
              clusterId.toString(),
              d);
          clusters.delete(caller.orgId(), clusterId);
          schedules.remove(clusterId);
        });
  }

  @Transactional(readOnly = true)
  public ClusterRow get(UUID orgId, UUID clusterId) {
    return clusters
        .findById(orgId, clusterId)
        .orElseThrow(() -> ApiException.notFound("cluster " + clusterId));
  }

  @Transactional(readOnly = true)
  public Optional<ClusterRow> find(UUID orgId, UUID clusterId) {
    return clusters.findById(orgId, clusterId);
  }

  @Transactional(readOnly = true)
  public List<ClusterRow> list(UUID orgId, Map<String, String> labelFilter) {
    return clusters.list(orgId, labelFilter);
  }

  public Duration disconnectTimeout() {
    return Duration.ofSeconds(props.agent().disconnectTimeoutSeconds());
  }

  private IssuedRegistrationToken issueToken(
      HubPrincipal caller, ClusterRow cluster, Boolean requireAcceptance) {
    IssuedRegistrationToken token =
        registration.issue(caller.orgId(), cluster.id(), caller.actor(), requireAcceptance);
    RegistrationWorkflow wf =
        temporal.newWorkflowStub(
            RegistrationWorkflow.class,
            WorkflowOptions.newBuilder()
                .setTaskQueue(TaskQueues.HUB)
                .setWorkflowId(RegistrationWorkflow.workflowId(token.tokenId().toString()))
                .build());
    // Inside the transaction: a failure to start rolls the rows back (nothing half-written).
    WorkflowClient.start(
        wf::run,
        new RegistrationRequest(
            caller.orgId().toString(),
            cluster.id().toString(),
            token.tokenId().toString(),
            token.expiresAt().toEpochMilli()));
    return token;
  }

  private void signalSuperseded(UUID oldTokenId, UUID newTokenId) {
    try {
      temporal
          .newWorkflowStub(
              RegistrationWorkflow.class, RegistrationWorkflow.workflowId(oldTokenId.toString()))
          .superseded(newTokenId.toString());
    } catch (RuntimeException e) {
      // The token is already unusable in PostgreSQL; the workflow will find that at its expiry.
      log.warn("could not signal registration workflow of token {}: {}", oldTokenId, e.toString());
    }
  }

  private String installCommand(ClusterRow c, IssuedRegistrationToken token) {
    return InstallCommand.build(
        props.agent().chart(),
        git.baseUrl() + "/charts",
        agentChart.name(),
        agentChart.version(),
        token.token(),
        props.agent().publicAddress(),
        c.name(),
        c.displayName(),
        c.provider(),
        c.region(),
        c.environment());
  }

  private static String nz(String s) {
    return s == null ? "" : s;
  }
}
