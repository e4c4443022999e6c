package dev.gitopshq.hub.config;

import dev.gitopshq.activities.agentcert.AgentCertificateMapper;
import dev.gitopshq.activities.agentcert.AgentCertificates;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.AuditMapper;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterMemberships;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.crypto.SecretBox;
import dev.gitopshq.activities.registration.RegistrationActivitiesImpl;
import dev.gitopshq.activities.registration.RegistrationStore;
import java.time.Clock;
import java.time.Duration;
import org.apache.ibatis.annotations.Mapper;
import org.mybatis.spring.annotation.MapperScan;
import org.springframework.beans.factory.ObjectProvider;
import org.springframework.beans.factory.annotation.Value;
import org.springframework.boot.autoconfigure.condition.ConditionalOnMissingBean;
import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/** Wires the activities module's store-side classes into the hub. */
@Configuration
@MapperScan(basePackages = "dev.gitopshq.activities", annotationClass = Mapper.class)
public class StoreConfig {

  /** UTC, ticking in microseconds: what PostgreSQL stores is exactly what the API returns. */
  @Bean
  @ConditionalOnMissingBean
  Clock clock() {
    return Clock.tick(Clock.systemUTC(), Duration.ofNanos(1000));
  }

  @Bean
  ReplicaIdentity replicaIdentity(HubProperties props) {
    return ReplicaIdentity.of(props.replicaId());
  }

  @Bean
  AuditLog auditLog(AuditMapper mapper, Clock clock) {
    return new AuditLog(mapper, clock);
  }

  @Bean
  RegistrationStore registrationStore(
      ClusterMapper clusters, ClusterTokenMapper tokens, AuditLog audit, Clock clock) {
    return new RegistrationStore(clusters, tokens, audit, clock);
  }

  /**
   * Agents' client certificates; {@code gitopshq.agent.certificate-validity}
   * (GITOPSHQ_AGENT_CERT_VALIDITY, default 24h) is how long each one is valid.
   */
  @Bean
  AgentCertificates agentCertificates(
      AgentCertificateMapper mapper,
      SecretBox box,
      Clock clock,
      @Value("${gitopshq.agent.certificate-validity:24h}") Duration validity) {
    return new AgentCertificates(mapper, box, clock, validity);
  }

  @Bean
  RegistrationActivitiesImpl registrationActivities(
      ClusterTokenMapper tokens, AuditLog audit, ObjectProvider<ClusterMemberships> memberships) {
    // Looked up when a cluster registers: the project services depend on Temporal, as the worker
    // these activities are registered with does.
    return new RegistrationActivitiesImpl(
        tokens,
        audit,
        (orgId, clusterId) ->
            memberships.getIfAvailable(() -> ClusterMemberships.NONE).registered(orgId, clusterId));
  }
}
