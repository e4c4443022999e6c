package dev.gitopshq.hub.policy;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.policy.DecisionHistoryMapper;
import dev.gitopshq.activities.policy.FreezeDecisionMapper;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.FreezeWindowMapper;
import dev.gitopshq.activities.policy.OpaClient;
import dev.gitopshq.activities.policy.PolicyMapper;
import dev.gitopshq.activities.policy.PolicyRepository;
import dev.gitopshq.activities.policy.PolicyService;
import dev.gitopshq.activities.policy.PolicyWhatIf;
import java.time.Clock;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;
import org.springframework.transaction.PlatformTransactionManager;

/**
 * Wires the activities module's OPA client, policy store and freeze windows into the hub. {@link
 * PolicyMapper} and {@link FreezeWindowMapper} are found by StoreConfig's mapper scan.
 */
@Configuration
public class PolicyConfig {

  /** Closed with the context (its HTTP client's threads end with the hub). */
  @Bean
  OpaClient opaClient(OpaProperties props) {
    return new OpaClient(
        props.url(),
        OpaClient.DEFAULT_CONNECT_TIMEOUT,
        OpaClient.DEFAULT_REQUEST_TIMEOUT,
        props.token(),
        OpaClient.Transport.parse(props.protocol()));
  }

  @Bean
  PolicyRepository policyRepository(PolicyMapper mapper) {
    return new PolicyRepository(mapper);
  }

  @Bean
  PolicyService policyService(
      OpaClient opa,
      PolicyRepository repository,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      OpaProperties props) {
    return new PolicyService(
        opa, repository, audit, transactions, clock, props.moduleCheckMaxAge());
  }

  @Bean
  FreezeService freezeService(
      OpaClient opa,
      PolicyService policies,
      FreezeWindowMapper windows,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock,
      FreezeDecisionMapper decisions) {
    return new FreezeService(opa, policies, windows, audit, transactions, clock, decisions);
  }

  @Bean
  PolicyWhatIf policyWhatIf(
      PolicyService policies,
      DecisionHistoryMapper history,
      AuditLog audit,
      PlatformTransactionManager transactions) {
    return new PolicyWhatIf(policies, history, audit, transactions);
  }

  @Bean
  ShippedPolicies shippedPolicies() {
    return ShippedPolicies.fromClasspath();
  }
}
