package dev.gitopshq.hub.argocd;

import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.cluster.LiveAgent;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import java.net.URLEncoder;
import java.nio.charset.StandardCharsets;
import java.time.Instant;
import java.util.List;
import java.util.UUID;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RestController;

/** {@code GET /api/v2/clusters/{id}/argocd/applications}: the Applications, live. */
@RestController
@RequestMapping("/api/v2/clusters/{id}/argocd")
public class ArgoController {
  private final LiveAgent live;
  private final AgentGatewayPort gateway;

  public ArgoController(LiveAgent live, AgentGatewayPort gateway) {
    this.live = live;
    this.gateway = gateway;
  }

  record Source(String repoURL, String path, String targetRevision, String chart) {}

  record Destination(String server, String name, String namespace) {}

  record LastSync(Instant at, String phase, String revision) {}

  record HistoryEntry(long id, String revision, Instant deployedAt, String repoURL, String path) {}

  record Application(
      String namespace,
      String name,
      String project,
      String syncStatus,
      String health,
      String healthMessage,
      Source source,
      Destination destination,
      String syncedRevision,
      LastSync lastSync,
      List<HistoryEntry> history,
      String url) {}

  record Applications(List<Application> items, String serverUrl, String warning) {}

  @GetMapping("/applications")
  Applications applications(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    LiveAgent.Cluster cluster = live.cluster(caller.orgId(), id);
    LiveAgent.requireCapability(cluster.row(), Capabilities.ARGOCD_READ);
    ArgoApplications apps =
        live.ask(
            cluster,
            "Argo CD applications are read live",
            timeout -> gateway.listApplications(caller.orgId(), id, timeout));
    if (apps.getForbidden()) {
      throw ApiException.forbidden(apps.getError());
    }
    String server = apps.getServerUrl();
    return new Applications(
        apps.getApplicationsList().stream().map(a -> view(a, server)).toList(),
        server.isEmpty() ? null : server,
        apps.getError().isEmpty() ? null : apps.getError());
  }

  static Application view(ArgoApplication a, String server) {
    return new Application(
        a.getNamespace(),
        a.getName(),
        a.getProject(),
        a.getSyncStatus(),
        a.getHealthStatus(),
        blankToNull(a.getHealthMessage()),
        new Source(
            a.getRepoUrl(),
            blankToNull(a.getPath()),
            a.getTargetRevision(),
            blankToNull(a.getChart())),
        new Destination(
            blankToNull(a.getDestinationServer()),
            blankToNull(a.getDestinationName()),
            a.getDestinationNamespace()),
        blankToNull(a.getSyncedRevision()),
        a.hasLastSyncedAt() || !a.getOperationPhase().isEmpty()
            ? new LastSync(
                a.hasLastSyncedAt()
                    ? Instant.ofEpochSecond(
                        a.getLastSyncedAt().getSeconds(), a.getLastSyncedAt().getNanos())
                    : null,
                blankToNull(a.getOperationPhase()),
                blankToNull(a.getOperationRevision()))
            : null,
        a.getHistoryList().stream()
            .map(
                h ->
                    new HistoryEntry(
                        h.getId(),
                        h.getRevision(),
                        h.hasDeployedAt()
                            ? Instant.ofEpochSecond(
                                h.getDeployedAt().getSeconds(), h.getDeployedAt().getNanos())
                            : null,
                        blankToNull(h.getRepoUrl()),
                        blankToNull(h.getPath())))
            .toList(),
        url(server, a));
  }

  /** Argo CD's UI address of the Application: /applications/{namespace}/{name}. */
  static String url(String server, ArgoApplication a) {
    if (server.isEmpty()) {
      return null;
    }
    return server
        + "/applications/"
        + URLEncoder.encode(a.getNamespace(), StandardCharsets.UTF_8)
        + "/"
        + URLEncoder.encode(a.getName(), StandardCharsets.UTF_8);
  }

  private static String blankToNull(String s) {
    return s == null || s.isEmpty() ? null : s;
  }
}
