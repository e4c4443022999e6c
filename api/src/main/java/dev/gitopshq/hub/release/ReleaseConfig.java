package dev.gitopshq.hub.release;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeliveryMapper;
import dev.gitopshq.activities.release.DeployWriter;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.ReleaseActivitiesImpl;
import dev.gitopshq.activities.release.ReleaseMapper;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires the release activities. */
@Configuration
public class ReleaseConfig {

  @Bean
  ConfigHistory configHistory(ProjectRepos repos) {
    return new ConfigHistory(repos);
  }

  @Bean
  dev.gitopshq.activities.release.DirectApplies directApplies(
      dev.gitopshq.activities.release.DirectApplyMapper applies,
      DeploymentMapper deployments,
      ProjectRepos repos,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock,
      ReleaseProperties props) {
    return new dev.gitopshq.activities.release.DirectApplies(
        applies,
        deployments,
        repos,
        audit,
        tx,
        clock,
        props.directDispatchTimeout(),
        props.directHealthTimeout());
  }

  @Bean
  dev.gitopshq.activities.release.RuntimeVerifications runtimeVerifications(
      dev.gitopshq.activities.release.RuntimeMapper runtime,
      DeploymentMapper deployments,
      ProjectMapper projects,
      dev.gitopshq.activities.org.OrgMapper orgs,
      ProjectRepos repos,
      dev.gitopshq.activities.gateway.AgentGatewayPort gateway,
      Clock clock,
      dev.gitopshq.hub.adapter.AdapterProperties adapters) {
    return new dev.gitopshq.activities.release.RuntimeVerifications(
            runtime, deployments, projects, orgs, repos, gateway, clock)
        .reconcileOnCommit(adapters.reconcileOnCommit());
  }

  @Bean
  ReleaseActivitiesImpl releaseActivities(
      ReleaseMapper releases,
      DeploymentMapper deployments,
      DeliveryMapper deliveries,
      ProjectMapper projects,
      EnvironmentMapper environments,
      ProjectTenantMapper projectTenants,
      PolicyService policies,
      FreezeService freeze,
      ProjectRepos repos,
      ConfigHistory history,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    return new ReleaseActivitiesImpl(
        releases,
        deployments,
        deliveries,
        projects,
        environments,
        projectTenants,
        policies,
        freeze,
        new DeployWriter(repos),
        history,
        webhook,
        audit,
        tx,
        clock);
  }
}
