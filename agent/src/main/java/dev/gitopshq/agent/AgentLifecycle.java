package dev.gitopshq.agent;

import com.google.protobuf.ByteString;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.config.ExitCodes;
import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.ClientCredential;
import dev.gitopshq.agent.link.ClientKeys;
import dev.gitopshq.agent.link.HubLink;
import dev.gitopshq.agent.link.LinkFailure;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.ClientCertificate;
import dev.gitopshq.agent.v1.RegisterResponse;
import java.security.KeyPair;
import java.time.Instant;
import java.util.Optional;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The agent's life on the link: load the identity; if there is none, register with the registration
 * token and save what the hub issued; then keep the Connect stream open until the link is closed or
 * gives up. {@link #run()} returns the process exit code (see {@link Agent}).
 */
final class AgentLifecycle {
  private static final Logger log = LoggerFactory.getLogger(AgentLifecycle.class);

  private final AgentConfig config;
  private final HubLink link;
  private final IdentityKeeper identities;

  AgentLifecycle(AgentConfig config, HubLink link, IdentityKeeper identities) {
    this.config = config;
    this.link = link;
    this.identities = identities;
  }

  /** The start-up lines: version, hub, transport, cluster, identity, capabilities. */
  void logStartup() {
    String transport =
        config.hubPlaintext()
            ? "plaintext"
            : config.hubInsecure()
                ? "TLS without certificate verification"
                : config.hubCaFile().map(ca -> "TLS (system trust + " + ca + ")").orElse("TLS");
    log.info(
        "GitOpsHQ agent {} starting: hub={} ({}), cluster={}, identity={}, capabilities={}",
        AgentVersion.current(),
        config.hubAddress(),
        transport,
        config.clusterName(),
        identities.location(),
        String.join(",", config.capabilities()));
    if (config.hubInsecure()) {
      log.warn(
          "WARNING: {}=true: the hub's TLS certificate is not verified, so anyone on the"
              + " network path can impersonate the hub; use this for development only",
          AgentConfig.HUB_INSECURE);
    }
  }

  /** Runs until the link ends; never throws. */
  int run() {
    try {
      return connect();
    } catch (LinkFailure failure) {
      log.error("{}", failure.getMessage());
      return failure.exitCode();
    } catch (RuntimeException e) {
      log.error("the agent stopped on an unexpected error: {}", Redactor.redact(e.toString()));
      return ExitCodes.IDENTITY_STORE;
    }
  }

  private int connect() throws LinkFailure {
    Optional<AgentIdentity> stored = identities.load();
    AgentIdentity identity;
    if (stored.isPresent()) {
      identity = stored.get();
      log.info(
          "using the stored identity of cluster {} from {}",
          identity.clusterId(),
          identities.location());
      if (!identity.hubAddress().equals(config.hubAddress())) {
        log.warn(
            "the stored identity was issued by hub {} but {} is {}; connecting to {}",
            identity.hubAddress(),
            AgentConfig.HUB_ADDRESS,
            config.hubAddress(),
            config.hubAddress());
      }
    } else {
      Optional<String> registrationToken = config.registrationToken();
      if (registrationToken.isEmpty()) {
        throw new LinkFailure(
            ExitCodes.CONFIGURATION,
            "no identity found at "
                + identities.location()
                + " and "
                + AgentConfig.REGISTRATION_TOKEN
                + " is not set; create a join token with"
                + " POST /api/v2/clusters/{id}/join-token");
      }
      // Over TLS the agent asks for a client certificate with its registration (mutual TLS).
      KeyPair key = config.hubPlaintext() ? null : ClientKeys.newKey();
      Optional<RegisterResponse> response =
          link.register(
              registrationToken.get(), key == null ? ByteString.EMPTY : ClientKeys.csr(key));
      if (response.isEmpty()) {
        return ExitCodes.OK;
      }
      ClientCredential certificate = null;
      if (key != null && response.get().hasClientCertificate()) {
        ClientCertificate issued = response.get().getClientCertificate();
        certificate =
            new ClientCredential(
                ClientKeys.keyPem(key.getPrivate()),
                issued.getCertificatePem(),
                issued.getCaCertificatePem());
        log.info(
            "the hub issued client certificate {}, valid until {}",
            certificate.serial(),
            certificate.notAfter());
      }
      identity =
          new AgentIdentity(
              response.get().getClusterId(),
              response.get().getAgentToken(),
              config.hubAddress(),
              Instant.now(),
              certificate);
      identities.saveRegistered(identity);
    }
    link.run(identity);
    return ExitCodes.OK;
  }
}
