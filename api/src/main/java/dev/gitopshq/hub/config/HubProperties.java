package dev.gitopshq.hub.config;

import java.nio.file.Path;
import java.time.Duration;
import org.springframework.boot.context.properties.ConfigurationProperties;

/**
 * The hub's own settings ({@code gitopshq.*} in application.yml, each backed by an environment
 * variable).
 *
 * @param dataDir where the hub keeps local files (the bootstrap token file)
 * @param plan the plan {@code GET /api/v2/features} reports
 * @param replicaId this replica's name in the cluster table's stream holder column; generated when
 *     empty
 */
@ConfigurationProperties("gitopshq")
public record HubProperties(
    Path dataDir, Bootstrap bootstrap, String plan, Agent agent, String replicaId) {

  /**
   * The first owner, created on first start.
   *
   * @param token the owner's API token when set (32+ characters); otherwise one is generated
   */
  public record Bootstrap(String token, String email, String orgSlug, String orgName) {}

  /**
   * The agent link.
   *
   * @param grpcPort the port the AgentHub gateway listens on
   * @param publicAddress host:port agents dial (AGENT_GRPC_PUBLIC_ADDRESS), put in install commands
   * @param heartbeatIntervalSeconds the heartbeat interval handed to agents
   * @param disconnectTimeoutSeconds silence after which a cluster is Disconnected
   * @param heartbeatFlushMillis how often buffered heartbeats are written, in one statement
   * @param chart the agent Helm chart reference used in install commands
   * @param tlsCertFile PEM certificate chain for the gateway; plaintext when empty
   * @param tlsKeyFile PEM private key for the gateway
   * @param sweepMillis how often a replica looks for parked commands and revoked tokens of the
   *     agents it holds without being told (PostgreSQL notifications tell it at once; the sweep is
   *     the fallback); 2,000 when 0
   * @param liveReconnectWait how long a live request (a read, Argo CD's applications, an inventory
   *     refresh, a log session) waits for an agent that lost its stream lately to come back to some
   *     replica before it answers 409; 10 s when unset, 0 never waits
   */
  public record Agent(
      int grpcPort,
      String publicAddress,
      int heartbeatIntervalSeconds,
      int disconnectTimeoutSeconds,
      long heartbeatFlushMillis,
      String chart,
      String tlsCertFile,
      String tlsKeyFile,
      long sweepMillis,
      Duration liveReconnectWait) {
    public long sweepMillis() {
      return sweepMillis > 0 ? sweepMillis : 2_000;
    }

    public Duration liveReconnectWait() {
      return liveReconnectWait != null ? liveReconnectWait : Duration.ofSeconds(10);
    }
  }
}
