package dev.gitopshq.hub.credential;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.credential.CredentialMapper;
import dev.gitopshq.activities.credential.CredentialSyncDecisions;
import dev.gitopshq.activities.credential.CredentialVault;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.org.OrgMapper;
import dev.gitopshq.activities.policy.PolicyService;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Credentials are sealed with the hub's one encryption key (gitopshq.encryption-key); their sync's
 * policy decisions come from the organization's {@code credentials} policy.
 */
@Configuration
public class CredentialConfig {
  @Bean
  CredentialVault credentialVault(SecretBox box) {
    return new CredentialVault(box);
  }

  @Bean
  CredentialSyncDecisions credentialSyncDecisions(
      CredentialMapper credentials,
      ClusterMapper clusters,
      OrgMapper orgs,
      PolicyService policies,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    return new CredentialSyncDecisions(
        credentials, clusters, orgs, policies, audit, new TransactionTemplate(transactions), clock);
  }
}
