package dev.gitopshq.hub.command;

import dev.gitopshq.activities.agentwatch.AgentWatchActivitiesImpl;
import dev.gitopshq.activities.approval.ApprovalActivitiesImpl;
import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyMapper;
import dev.gitopshq.activities.approvalpolicy.ApprovalPolicyResolver;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.command.AgentDispatchActivitiesImpl;
import dev.gitopshq.activities.command.CommandActivitiesImpl;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.gateway.AgentJobMapper;
import dev.gitopshq.activities.notify.NotificationSettingsMapper;
import dev.gitopshq.activities.notify.NotificationTargets;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.org.OrgRow;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.rotation.RotationActivitiesImpl;
import dev.gitopshq.activities.rotation.RotationDeliveryActivitiesImpl;
import dev.gitopshq.hub.config.HubProperties;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/** Wires the command and approval activities. */
@Configuration
public class CommandConfig {

  @Bean
  TransactionTemplate transactionTemplate(PlatformTransactionManager tm) {
    return new TransactionTemplate(tm);
  }

  /**
   * Each organization's webhook; GITOPSHQ_WEBHOOK_URL and GITOPSHQ_WEBHOOK_SECRET serve the
   * bootstrap organization only, while it has no settings of its own.
   */
  @Bean
  NotificationTargets notificationTargets(
      NotificationSettingsMapper settings,
      SecretBox box,
      OrgMapper orgs,
      HubProperties hub,
      NotifyProperties props,
      Clock clock) {
    return new NotificationTargets(
        settings,
        box,
        () -> orgs.findBySlug(hub.bootstrap().orgSlug()).map(OrgRow::id),
        props.webhookUrl(),
        props.webhookSecret(),
        org ->
            switch (props.privateTargets()) {
              case "all" -> true;
              case "none" -> false;
              default -> orgs.isOperator(org);
            },
        clock);
  }

  @Bean
  WebhookNotifier webhookNotifier(NotificationTargets targets, Clock clock) {
    return new WebhookNotifier(targets, clock);
  }

  @Bean
  CommandActivitiesImpl commandActivities(
      CommandMapper commands,
      ClusterMapper clusters,
      ApprovalPolicyResolver approvalPolicies,
      PolicyService policies,
      FreezeService freezes,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    return new CommandActivitiesImpl(
        commands, clusters, approvalPolicies, policies, freezes, webhook, audit, tx, clock);
  }

  /** The one resolver of the approval policy in force for a cluster. */
  @Bean
  ApprovalPolicyResolver approvalPolicyResolver(ApprovalPolicyMapper policies) {
    return new ApprovalPolicyResolver(policies);
  }

  @Bean
  ApprovalActivitiesImpl approvalActivities(
      ApprovalMapper approvals, AuditLog audit, TransactionTemplate tx, Clock clock) {
    return new ApprovalActivitiesImpl(approvals, audit, tx, clock);
  }

  @Bean
  RotationActivitiesImpl rotationActivities(
      ClusterMapper clusters,
      ClusterTokenMapper tokens,
      AuditLog audit,
      WebhookNotifier webhook,
      TransactionTemplate tx,
      Clock clock) {
    return new RotationActivitiesImpl(clusters, tokens, audit, webhook, tx, clock);
  }

  @Bean
  RotationDeliveryActivitiesImpl rotationDeliveryActivities(
      ClusterTokenMapper tokens,
      AgentGatewayPort gateway,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    return new RotationDeliveryActivitiesImpl(tokens, gateway, audit, tx, clock);
  }

  @Bean
  AgentWatchActivitiesImpl agentWatchActivities(
      ClusterMapper clusters, WebhookNotifier webhook, Clock clock) {
    return new AgentWatchActivitiesImpl(clusters, webhook, clock);
  }

  @Bean
  AgentDispatchActivitiesImpl agentDispatchActivities(
      CommandMapper commands, AgentJobMapper jobs, AgentGatewayPort gateway, Clock clock) {
    return new AgentDispatchActivitiesImpl(commands, jobs, gateway, clock);
  }
}
