package dev.gitopshq.hub.drift;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.drift.DesiredState;
import dev.gitopshq.activities.drift.DriftMapper;
import dev.gitopshq.activities.drift.DriftStore;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.release.ReleaseActivitiesImpl;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.gateway.AgentGateway;
import java.time.Clock;
import java.util.Optional;
import java.util.UUID;
import org.springframework.beans.factory.SmartInitializingSingleton;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires drift checks into the hub: the store, the deployment hook and the gateway's loader. */
@Configuration
public class DriftConfig {

  @Bean
  DriftStore driftStore(DriftMapper mapper, AuditLog audit, TransactionTemplate tx, Clock clock) {
    return new DriftStore(mapper, audit, tx, clock);
  }

  @Bean
  DesiredState desiredState(DriftMapper mapper, ProjectRepos repos) {
    return new DesiredState(mapper, repos);
  }

  /**
   * Every deployment that commits an environment asks for a check of each cluster it delivers to,
   * after {@code gitopshq.drift.after-deployment-delay}; a resolve-drift command gets its desired
   * manifest from its finding when the gateway sends it.
   */
  @Bean
  SmartInitializingSingleton driftHooks(
      ReleaseActivitiesImpl releases,
      DriftStore store,
      DriftMapper mapper,
      AgentGateway gateway,
      DriftProperties props) {
    return () -> {
      releases.onDeployed(
          (org, project, env, deployment) ->
              store.deployed(
                  org, project, env, "deployment " + deployment, props.afterDeploymentDelay()));
      gateway.resolveDriftManifests(
          c -> {
            String finding = c.params().get(CommandTypes.PARAM_FINDING);
            if (finding == null) {
              return Optional.empty();
            }
            try {
              return mapper.desiredManifest(c.orgId(), c.clusterId(), UUID.fromString(finding));
            } catch (IllegalArgumentException e) {
              return Optional.empty();
            }
          });
    };
  }
}
