package dev.gitopshq.hub.command;

import dev.gitopshq.activities.agentwatch.AgentWatchActivitiesImpl;
import dev.gitopshq.activities.approval.ApprovalActivitiesImpl;
import dev.gitopshq.activities.approval.ApprovalMapper;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.command.AgentDispatchActivitiesImpl;
import dev.gitopshq.activities.command.ApprovalSettingsMapper;
import dev.gitopshq.activities.command.CommandActivitiesImpl;
import dev.gitopshq.activities.command.CommandMapper;
import dev.gitopshq.activities.gateway.AgentGatewayPort;
import dev.gitopshq.activities.notify.WebhookNotifier;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.rotation.RotationActivitiesImpl;
import dev.gitopshq.activities.rotation.RotationDeliveryActivitiesImpl;
import dev.gitopshq.activities.store.ClusterMapper;
import dev.gitopshq.activities.store.ClusterTokenMapper;
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

  @Bean
  WebhookNotifier webhookNotifier(NotifyProperties props, Clock clock) {
    return new WebhookNotifier(props.webhookUrl(), props.webhookSecret(), clock);
  }

  @Bean
  CommandActivitiesImpl commandActivities(
      CommandMapper commands,
      ClusterMapper clusters,
      ApprovalSettingsMapper settings,
      PolicyService policies,
      WebhookNotifier webhook,
      AuditLog audit,
      TransactionTemplate tx,
      Clock clock) {
    return new CommandActivitiesImpl(
        commands, clusters, settings, policies, webhook, audit, tx, clock);
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
      CommandMapper commands, AgentGatewayPort gateway, Clock clock) {
    return new AgentDispatchActivitiesImpl(commands, gateway, clock);
  }
}
