package dev.gitopshq.hub.gateway;

import org.springframework.context.annotation.Bean;
import org.springframework.context.annotation.Configuration;

/**
 * The parts of the {@link AgentGateway} other features depend on by themselves: built by the
 * gateway around its streams, published here so that they depend on the gateway and never the other
 * way round.
 */
@Configuration(proxyBeanMethods = false)
class GatewayConfig {
  /** Listens on {@code gitopshq_agents} through {@code PgListener}. */
  @Bean
  AgentNotifications agentNotifications(AgentGateway gateway) {
    return gateway.notifications();
  }

  /** Live reads, inventory refreshes and log sessions, here or forwarded. */
  @Bean
  LiveRequests liveRequests(AgentGateway gateway) {
    return gateway.live();
  }
}
