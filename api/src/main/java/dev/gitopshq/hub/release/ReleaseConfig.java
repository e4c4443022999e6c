package dev.gitopshq.hub.release;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.delivery.EnvironmentMapper;
import dev.gitopshq.activities.delivery.ProjectMapper;
import dev.gitopshq.activities.delivery.ProjectTenantMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.activities.git.ProjectRepos;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.release.ConfigHistory;
import dev.gitopshq.activities.release.DeliveryMapper;
import dev.gitopshq.activities.release.DeployWriter;
import dev.gitopshq.activities.release.DeploymentMapper;
import dev.gitopshq.activities.release.DirectApplies;
import dev.gitopshq.activities.release.DirectApplyMapper;
import dev.gitopshq.activities.release.ReleaseActivitiesImpl;
import dev.gitopshq.activities.release.ReleaseMapper;
import dev.gitopshq.activities.release.RuntimeMapper;
import dev.gitopshq.activities.release.RuntimeVerifications;
import dev.gitopshq.hub.adapter.AdapterProperties;
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
  DirectApplies directApplies(
      DirectApplyMapper applies,
      AgentJobMapper jobs,
      DeploymentMapper deployments,
      ProjectRepos repos,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock,
      ReleaseProperties props) {
    return new DirectApplies(
        applies,
        jobs,
        deployments,
        repos,
        audit,
        tx,
        clock,
        props.directDispatchTimeout(),
        props.directHealthTimeout());
  }

  @Bean
  RuntimeVerifications runtimeVerifications(
      RuntimeMapper runtime,
      DeploymentMapper deployments,
      ProjectMapper projects,
      OrgMapper orgs,
      ProjectRepos repos,
      AgentGatewayPort gateway,
      Clock clock,
      AdapterProperties adapters) {
    return new RuntimeVerifications(runtime, deployments, projects, orgs, repos, gateway, clock)
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
