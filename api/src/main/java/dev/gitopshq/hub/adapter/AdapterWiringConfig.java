package dev.gitopshq.hub.adapter;

import dev.gitopshq.activities.adapter.AdapterWiringMapper;
import dev.gitopshq.activities.adapter.AdapterWirings;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.delivery.ProjectFenceMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.git.DeployTokenMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.release.ReleaseActivitiesImpl;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.hub.config.GitProperties;
import dev.gitopshq.hub.delivery.ConfigChangeListener;
import dev.gitopshq.hub.gateway.AgentStreamListener;
import java.time.Clock;
import java.util.Set;
import java.util.UUID;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** The wiring activity, and what starts a wiring: changes, deployments, agents connecting. */
@Configuration
public class AdapterWiringConfig {
  @Bean
  AdapterWirings adapterWirings(
      AdapterWiringMapper wirings,
      ClusterMapper clusters,
      OrgMapper orgs,
      ProjectFenceMapper fences,
      DeployTokenMapper deployTokens,
      ProjectRepos repos,
      AgentGatewayPort gateway,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      GitProperties git,
      AdapterProperties props) {
    return new AdapterWirings(
        wirings,
        clusters,
        orgs,
        fences,
        deployTokens,
        repos,
        gateway,
        audit,
        new TransactionTemplate(transactions),
        clock,
        git.baseUrl(),
        (int) props.interval().toSeconds());
  }

  /** A committed configuration change may bind, unbind or re-fence clusters. */
  @Bean
  ConfigChangeListener adaptersOnConfigChange(AdapterWiringStarter starter) {
    return (org, project, revision) ->
        starter.rewireProject(org, project, "configuration revision " + revision);
  }

  /** An agent that connects gets its adapter objects checked (and restored) at once. */
  @Bean
  AgentStreamListener adaptersOnHello(AdapterWiringStarter starter) {
    return new AgentStreamListener() {
      @Override
      public void welcomed(UUID orgId, UUID clusterId, Set<String> capabilities) {
        if (capabilities.contains(Capabilities.ADAPTER_WIRE)) {
          starter.rewire(orgId, clusterId, "the agent connected");
        }
      }

      @Override
      public String toString() {
        return "adapter wiring";
      }
    };
  }

  /** A deployment's commit may add a tenant directory, or a namespace, to a deploy branch. */
  @Bean
  SmartInitializingSingleton adaptersOnDeploy(
      ReleaseActivitiesImpl releases, AdapterWiringStarter starter) {
    return () ->
        releases.onDeployed(
            (org, project, env, deployment) ->
                starter.rewireProject(org, project, "deployment " + deployment));
  }
}
