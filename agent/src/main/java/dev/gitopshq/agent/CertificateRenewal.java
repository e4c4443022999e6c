package dev.gitopshq.agent;

import dev.gitopshq.agent.identity.AgentIdentity;
import dev.gitopshq.agent.identity.ClientCredential;
import dev.gitopshq.agent.link.ClientKeys;
import dev.gitopshq.agent.link.HubLink;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.ClientCertificate;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import java.security.KeyPair;
import java.time.Clock;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Renews the agent's client certificate before it expires: once two thirds of its lifetime have
 * passed (16 hours into the default 24), the agent makes a new key, asks the hub to sign it ({@code
 * RenewCertificate}), persists key and certificate with its identity, and reconnects so the new
 * certificate is the one presented. An agent without a certificate (registered before the hub
 * issued them, or whose certificate expired) asks for one the same way; a hub that does not know
 * the call is not asked again.
 */
final class CertificateRenewal implements AutoCloseable {
  private static final Logger log = LoggerFactory.getLogger(CertificateRenewal.class);

  /** How often the agent looks whether it is time to renew. */
  static final Duration CHECK_EVERY = Duration.ofMinutes(1);

  private final IdentityKeeper identities;
  private final HubLink link;
  private final Clock clock;
  private ScheduledExecutorService timer;
  private volatile boolean unsupported;

  CertificateRenewal(IdentityKeeper identities, HubLink link, Clock clock) {
    this.identities = identities;
    this.link = link;
    this.clock = clock;
  }

  void start(Duration every) {
    timer =
        Executors.newSingleThreadScheduledExecutor(
            r -> {
              Thread t = new Thread(r, "gitopshq-agent-certificate");
              t.setDaemon(true);
              return t;
            });
    timer.scheduleWithFixedDelay(
        this::checkQuietly, every.toMillis(), every.toMillis(), TimeUnit.MILLISECONDS);
  }

  /** Whether {@code identity}'s certificate is due for renewal now (or it has none). */
  boolean due(AgentIdentity identity) {
    ClientCredential c = identity.certificate();
    return c == null ? !unsupported : !clock.instant().isBefore(c.renewAt());
  }

  private void checkQuietly() {
    try {
      check();
    } catch (RuntimeException e) {
      log.warn(
          "renewing the client certificate failed; retrying in {} s: {}",
          CHECK_EVERY.toSeconds(),
          Redactor.redact(e.toString()));
    }
  }

  /**
   * Renews when due and the link is connected.
   *
   * @return the renewed identity, empty when nothing was renewed
   */
  Optional<AgentIdentity> check() {
    Optional<AgentIdentity> current = link.identity();
    if (current.isEmpty() || !link.isConnected() || !due(current.get())) {
      return Optional.empty();
    }
    KeyPair key = ClientKeys.newKey();
    ClientCertificate issued;
    try {
      issued = link.renewCertificate(ClientKeys.csr(key));
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.UNIMPLEMENTED) {
        unsupported = true;
        log.info("the hub issues no client certificates; the agent token alone identifies it");
        return Optional.empty();
      }
      throw e;
    }
    ClientCredential next =
        new ClientCredential(
            ClientKeys.keyPem(key.getPrivate()),
            issued.getCertificatePem(),
            issued.getCaCertificatePem());
    AgentIdentity saved = identities.renewCertificate(next);
    log.info(
        "renewed the client certificate: {} valid until {}, saved to {}; reconnecting with it",
        next.serial(),
        next.notAfter(),
        identities.location());
    link.certificateRenewed(saved);
    return Optional.of(saved);
  }

  @Override
  public void close() {
    if (timer != null) {
      timer.shutdownNow();
    }
  }
}
