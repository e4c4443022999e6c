package dev.gitopshq.hub.gateway;

import com.google.protobuf.ByteString;
import com.google.protobuf.Timestamp;
import dev.gitopshq.activities.agentcert.AgentCertificates;
import dev.gitopshq.activities.agentcert.CertificateAuthority;
import dev.gitopshq.activities.cluster.ClusterHelloState;
import dev.gitopshq.activities.cluster.ClusterMapper;
import dev.gitopshq.activities.cluster.ClusterTokenMapper;
import dev.gitopshq.activities.cluster.ClusterTokenRow;
import dev.gitopshq.activities.inventory.InventoryStore;
import dev.gitopshq.activities.registration.AgentRegistration;
import dev.gitopshq.activities.registration.ClusterNameMismatchException;
import dev.gitopshq.activities.registration.RegistrationStore;
import dev.gitopshq.activities.tokens.TokenKind;
import dev.gitopshq.activities.tokens.Tokens;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.AgentSettings;
import dev.gitopshq.agent.v1.Capabilities;
import dev.gitopshq.agent.v1.ClientCertificate;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.RenewCertificateRequest;
import dev.gitopshq.agent.v1.Welcome;
import dev.gitopshq.hub.config.HubVersion;
import dev.gitopshq.hub.config.VersionCompatibility;
import dev.gitopshq.hub.temporal.RotationSchedules;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.hub.web.DatabaseUnavailable;
import dev.gitopshq.workflows.registration.AgentRegistered;
import dev.gitopshq.workflows.registration.RegistrationWorkflow;
import dev.gitopshq.workflows.rotation.RotationRequest;
import dev.gitopshq.workflows.rotation.TokenAck;
import dev.gitopshq.workflows.rotation.TokenRotationWorkflow;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.stub.ServerCallStreamObserver;
import io.grpc.stub.StreamObserver;
import io.temporal.client.WorkflowClient;
import java.security.PublicKey;
import java.security.cert.X509Certificate;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Optional;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.BiConsumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * {@code agent.v1.AgentHub}. Every token problem (unknown, expired, consumed, superseded, revoked,
 * malformed or missing) gets the same UNAUTHENTICATED answer with the same text.
 */
final class AgentHubService extends AgentHubGrpc.AgentHubImplBase {
  private static final Logger log = LoggerFactory.getLogger(AgentHubService.class);
  static final String BAD_TOKEN = "invalid or expired token";
  private static final int MAX_VERSION_LENGTH = 64;

  private final RegistrationStore registration;
  private final ClusterTokenMapper tokens;
  private final ClusterMapper clusters;
  private final AgentConnections connections;
  private final JobDispatcher jobs;
  private final WorkflowClient temporal;
  private final RotationSchedules schedules;
  private final AgentSettings settings;
  private final String hubVersion;
  private final Clock clock;
  private final GatewayMetrics metrics;
  private final AgentCertificates certificates;

  /**
   * What a welcomed stream's message does, by payload; answers to jobs (commands, direct applies,
   * adapter wiring, reconcile requests, drift checks, and any kind added later) go to {@link #jobs}
   * instead.
   */
  private final StreamHandlers handlers;

  /** Features that use the stream without the gateway knowing them (credential sync). */
  final List<AgentStreamListener> listeners = new CopyOnWriteArrayList<>();

  AgentHubService(
      RegistrationStore registration,
      ClusterTokenMapper tokens,
      ClusterMapper clusters,
      AgentConnections connections,
      HeartbeatBuffer heartbeats,
      JobDispatcher jobs,
      WorkflowClient temporal,
      RotationSchedules schedules,
      InventoryStore inventory,
      StreamExchanges exchanges,
      AgentSettings settings,
      String hubVersion,
      Clock clock,
      GatewayMetrics metrics,
      AgentCertificates certificates) {
    this.metrics = metrics;
    this.certificates = certificates;
    this.registration = registration;
    this.tokens = tokens;
    this.clusters = clusters;
    this.connections = connections;
    this.jobs = jobs;
    this.temporal = temporal;
    this.schedules = schedules;
    this.settings = settings;
    this.hubVersion = hubVersion;
    this.clock = clock;
    this.handlers =
        new StreamHandlers(tokens, heartbeats, temporal, inventory, exchanges, metrics, listeners);
  }

  @Override
  public void register(RegisterRequest req, StreamObserver<RegisterResponse> out) {
    // Before authentication: the refusal of an incompatible agent does not name the hub's version.
    String invalid =
        validate(req.getClusterName(), req.getAgentVersion(), req.getCapabilitiesList(), false);
    if (invalid == null) {
      invalid = ReportedIdentities.invalid(req.getIdentity());
    }
    if (invalid != null) {
      out.onError(statusFor(invalid).withDescription(invalid).asRuntimeException());
      return;
    }
    PublicKey agentKey;
    try {
      agentKey = csrKey(req.getCertificateRequest());
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return;
    }
    Optional<AgentRegistration> result;
    try {
      result =
          registration.consume(
              BearerCredentials.TOKEN.get(),
              new RegistrationStore.AgentDescription(
                  req.getClusterName(),
                  req.getAgentVersion(),
                  req.getCapabilitiesList(),
                  req.hasIdentity() ? ReportedIdentities.of(req.getIdentity()) : null));
    } catch (ClusterNameMismatchException e) {
      out.onError(Status.FAILED_PRECONDITION.withDescription(e.getMessage()).asRuntimeException());
      return;
    } catch (RuntimeException e) {
      log.error("registration failed", e);
      out.onError(
          Status.UNAVAILABLE.withDescription("registration failed; retry").asRuntimeException());
      return;
    }
    if (result.isEmpty()) {
      out.onError(unauthenticated());
      return;
    }
    AgentRegistration r = result.get();
    log.info(
        "cluster {} ({}) registered, agent {}",
        r.clusterName(),
        r.clusterId(),
        LogSafe.text(req.getAgentVersion()));
    if (!r.revokedAgentTokens().isEmpty()) {
      connections.closeTokens(
          r.revokedAgentTokens(), "agent identity replaced by a new registration");
    }
    signalRegistered(r, req);
    RegisterResponse.Builder response =
        RegisterResponse.newBuilder()
            .setClusterId(r.clusterId().toString())
            .setAgentToken(r.agentToken())
            .setSettings(settings);
    try {
      // A new registration replaces the agent's identity: its earlier certificates end with it.
      certificates.revokeAll(r.orgId(), r.clusterId(), "registration");
      if (agentKey != null) {
        response.setClientCertificate(
            clientCertificate(certificates.issue(r.orgId(), r.clusterId(), agentKey)));
      }
    } catch (RuntimeException e) {
      // The registration is committed: the agent gets its token, and asks for a certificate again
      // with RenewCertificate.
      log.warn(
          "cluster {} registered, but its client certificate could not be issued: {}",
          r.clusterId(),
          e.toString());
    }
    out.onNext(response.build());
    out.onCompleted();
  }

  @Override
  public void renewCertificate(RenewCertificateRequest req, StreamObserver<ClientCertificate> out) {
    try {
      PublicKey agentKey = csrKey(req.getCertificateRequest());
      if (agentKey == null) {
        throw Status.INVALID_ARGUMENT
            .withDescription("certificate_request: is required")
            .asRuntimeException();
      }
      ClusterTokenRow t = authenticate(BearerCredentials.TOKEN.get());
      certificateOf(t);
      AgentCertificates.Issued issued;
      try {
        issued = certificates.issue(t.orgId(), t.clusterId(), agentKey);
      } catch (RuntimeException e) {
        log.error("cluster {}: issuing its client certificate failed", t.clusterId(), e);
        throw Status.UNAVAILABLE
            .withDescription("cannot issue a certificate now; retry")
            .asRuntimeException();
      }
      log.info(
          "cluster {}: client certificate {} issued, valid until {}",
          t.clusterId(),
          issued.row().serial(),
          issued.row().notAfter());
      out.onNext(clientCertificate(issued));
      out.onCompleted();
    } catch (StatusRuntimeException e) {
      out.onError(e);
    }
  }

  /** The CSR's public key, null when none was sent; INVALID_ARGUMENT when it is no good. */
  private static PublicKey csrKey(ByteString csr) {
    if (csr.isEmpty()) {
      return null;
    }
    try {
      return CertificateAuthority.publicKeyOf(csr.toByteArray());
    } catch (CertificateAuthority.BadCsr e) {
      throw Status.INVALID_ARGUMENT
          .withDescription("certificate_request: " + e.getMessage())
          .asRuntimeException();
    }
  }

  private static ClientCertificate clientCertificate(AgentCertificates.Issued issued) {
    return ClientCertificate.newBuilder()
        .setCertificatePem(issued.certificatePem())
        .setCaCertificatePem(issued.caPem())
        .setSerial(issued.row().serial())
        .setNotAfter(
            Timestamp.newBuilder()
                .setSeconds(issued.row().notAfter().getEpochSecond())
                .setNanos(issued.row().notAfter().getNano()))
        .build();
  }

  /**
   * The agent token's row; UNAUTHENTICATED for any bad token, UNAVAILABLE when PostgreSQL cannot
   * tell.
   */
  private ClusterTokenRow authenticate(String token) {
    Optional<ClusterTokenRow> auth = Optional.empty();
    if (TokenKind.AGENT.matches(token)) {
      try {
        auth = tokens.findActiveAgentToken(Tokens.sha256Hex(token), clock.instant());
      } catch (RuntimeException e) {
        log.error("agent token lookup failed", e);
        throw Status.UNAVAILABLE
            .withDescription("hub storage unavailable; retry")
            .asRuntimeException();
      }
    }
    return auth.orElseThrow(AgentHubService::unauthenticated);
  }

  /**
   * The client certificate the call presented over mutual TLS, checked against the cluster its
   * agent token names: its agent_certificates id, or null when it presented none and the
   * organization allows that. UNAUTHENTICATED for a certificate that is not the cluster's, not the
   * organization CA's, expired, unknown or revoked, and for none where one is required.
   */
  private UUID certificateOf(ClusterTokenRow t) {
    X509Certificate presented = ClientCertificates.CERTIFICATE.get();
    try {
      if (presented == null) {
        if (certificates.required(t.orgId())) {
          log.info(
              "cluster {}: refused, its organization requires a client certificate", t.clusterId());
          throw Status.UNAUTHENTICATED
              .withDescription(
                  "the organization requires a client certificate (mutual TLS) with the agent"
                      + " token")
              .asRuntimeException();
        }
        return null;
      }
      AgentCertificates.Check check = certificates.check(t.orgId(), t.clusterId(), presented);
      if (check instanceof AgentCertificates.Check.Refused refused) {
        log.warn("cluster {}: refused: {}", t.clusterId(), refused.reason());
        throw Status.UNAUTHENTICATED.withDescription(refused.reason()).asRuntimeException();
      }
      return ((AgentCertificates.Check.Accepted) check).row().id();
    } catch (StatusRuntimeException e) {
      throw e;
    } catch (RuntimeException e) {
      log.error("client certificate check failed", e);
      throw Status.UNAVAILABLE
          .withDescription("hub storage unavailable; retry")
          .asRuntimeException();
    }
  }

  @Override
  public StreamObserver<AgentMessage> connect(StreamObserver<HubMessage> responses) {
    ServerCallStreamObserver<HubMessage> out = (ServerCallStreamObserver<HubMessage>) responses;
    ClusterTokenRow t;
    UUID certificateId;
    try {
      t = authenticate(BearerCredentials.TOKEN.get());
      certificateId = certificateOf(t);
    } catch (StatusRuntimeException e) {
      out.onError(e);
      return Drain.INSTANCE;
    }
    AgentSession session = new AgentSession(t.orgId(), t.clusterId(), t.id(), out, clock.instant());
    session.certificateId = certificateId;
    out.setOnCancelHandler(() -> ended(session));
    acknowledgeByUse(t);
    return new StreamObserver<>() {
      @Override
      public void onNext(AgentMessage message) {
        try {
          handle(session, message);
        } catch (StatusRuntimeException e) {
          metrics.streamError(e.getStatus().getCode());
          if (session.close(e.getStatus())) {
            connections.remove(session);
          }
        } catch (RuntimeException e) {
          Status status;
          if (DatabaseUnavailable.causedBy(e)) {
            // PostgreSQL restarting: the agent reconnects, and the hub re-sends what is still
            // parked, so a result lost here comes back from the agent's memory.
            log.warn(
                "database unavailable while handling a message from cluster {}", session.clusterId);
            status = Status.UNAVAILABLE.withDescription("hub database unavailable; reconnect");
          } else {
            log.error("error handling message from cluster {}", session.clusterId, e);
            status = Status.INTERNAL.withDescription("hub error; reconnect");
          }
          metrics.streamError(status.getCode());
          if (session.close(status)) {
            connections.remove(session);
          }
        }
      }

      @Override
      public void onError(Throwable t) {
        metrics.streamError("TRANSPORT");
        ended(session);
      }

      @Override
      public void onCompleted() {
        if (session.close(Status.OK)) {
          connections.remove(session);
        }
      }
    };
  }

  private void handle(AgentSession session, AgentMessage message) {
    if (session.isClosed()) {
      return;
    }
    Instant now = clock.instant();
    AgentMessage.PayloadCase payload = message.getPayloadCase();
    if (payload == AgentMessage.PayloadCase.HELLO) {
      hello(session, message.getHello(), now);
      return;
    }
    // An answer to a job first: a feature that turns a message pair into a job kind takes it over.
    BiConsumer<AgentSession, AgentMessage> handler =
        jobs.answeredBy(payload).isPresent() ? jobs::onAnswer : handlers.get(payload);
    if (handler == null) {
      // A newer agent may send messages this hub does not know; they are ignored.
      return;
    }
    // Everything but Hello comes after it, and every message proves the agent alive.
    requireHello(session);
    session.seen(now);
    // Hub acceptance: a cluster an admin has not accepted only keeps its stream alive.
    if (!session.accepted() && payload != AgentMessage.PayloadCase.HEARTBEAT) {
      return;
    }
    handler.accept(session, message);
  }

  private void hello(AgentSession session, Hello hello, Instant now) {
    if (session.connectedAt() != null) {
      throw Status.INVALID_ARGUMENT
          .withDescription("hello was already sent on this stream")
          .asRuntimeException();
    }
    String invalid = validate("", hello.getAgentVersion(), hello.getCapabilitiesList(), true);
    if (invalid == null) {
      invalid = ReportedIdentities.invalid(hello.getIdentity());
    }
    if (invalid != null) {
      throw statusFor(invalid).withDescription(invalid).asRuntimeException();
    }
    int interval =
        hello.getHeartbeatIntervalSeconds() > 0
            ? Math.min(hello.getHeartbeatIntervalSeconds(), settings.getDisconnectTimeoutSeconds())
            : settings.getHeartbeatIntervalSeconds();
    int updated =
        clusters.markConnected(
            session.orgId,
            session.clusterId,
            connections.replicaId(),
            hello.getAgentVersion(),
            hello.getCapabilitiesList(),
            interval,
            now);
    if (updated == 0) {
      throw Status.UNAUTHENTICATED.withDescription(BAD_TOKEN).asRuntimeException();
    }
    if (hello.hasIdentity()) {
      ReportedIdentities.record(
          clusters, session.orgId, session.clusterId, hello.getIdentity(), now);
    }
    // The cluster was deleted since it was marked connected: as if its token were unknown.
    ClusterHelloState state =
        clusters
            .helloState(session.orgId, session.clusterId)
            .orElseThrow(
                () -> Status.UNAUTHENTICATED.withDescription(BAD_TOKEN).asRuntimeException());
    boolean pending = state.pendingAcceptance();
    session.connected(
        now, hello.getCapabilitiesList(), hello.getDiagnosticsNamespacesList(), pending);
    connections.add(session);
    if (!pending) {
      // Before the Welcome, so that a welcomed agent's schedule is already decided on (the
      // Temporal call, if the recorded state differs, runs on a thread of its own).
      schedules.onHello(
          session.orgId,
          session.clusterId,
          hello.getCapabilitiesList().contains(Capabilities.TOKEN_ROTATE),
          state.rotationScheduled());
    }
    session.send(
        HubMessage.newBuilder()
            .setWelcome(
                Welcome.newBuilder()
                    .setClusterId(session.clusterId.toString())
                    .setSettings(settings.toBuilder().setHeartbeatIntervalSeconds(interval))
                    .setHubVersion(hubVersion)
                    .setPendingAcceptance(pending))
            .build());
    log.info(
        "cluster {} connected (agent {}){}",
        session.clusterId,
        LogSafe.text(hello.getAgentVersion()),
        pending ? ", waiting for an admin's acceptance" : "");
    if (pending) {
      // Nothing goes out until an admin accepts the cluster; the stream is then ended and the
      // agent's reconnect takes this path in full.
      return;
    }
    // Whatever waited for this agent goes out now.
    jobs.sendWaiting(session);
    for (AgentStreamListener l : listeners) {
      try {
        l.welcomed(session.orgId, session.clusterId, session.capabilities());
        if (hello.hasIdentity()) {
          l.identityReported(session.orgId, session.clusterId, hello.getIdentity());
        }
      } catch (RuntimeException e) {
        log.warn("cluster {}: {} failed on hello: {}", session.clusterId, l, e.toString());
      }
    }
  }

  /**
   * A stream opened with a rotation's pending token answers that rotation: the agent saves a
   * rotated token before it uses it, so this is the acknowledgement even when its {@code
   * TokenRotated} was lost (the stream ended before the hub could check it, e.g. while PostgreSQL
   * was restarting, or the replica died). Without it the rotation would time out and revoke the
   * only token the agent has left. The rotation is the token's own, so no other cluster's rotation
   * can be answered.
   */
  private void acknowledgeByUse(ClusterTokenRow t) {
    if (!"pending".equals(t.status())) {
      return;
    }
    try {
      tokens
          .pendingRotation(t.orgId(), t.id())
          .ifPresent(
              rotationId -> {
                log.info(
                    "cluster {} connected with the pending token of rotation {}: acknowledged",
                    t.clusterId(),
                    rotationId);
                temporal
                    .newWorkflowStub(
                        TokenRotationWorkflow.class, RotationRequest.workflowId(rotationId))
                    .acknowledged(new TokenAck(rotationId, true, ""));
              });
    } catch (RuntimeException e) {
      // The rotation finished (or PostgreSQL went away again): its TokenRotated may still come.
      log.warn(
          "cluster {} connected with a pending token whose rotation no longer waits: {}",
          t.clusterId(),
          e.toString());
    }
  }

  private static void requireHello(AgentSession session) {
    if (session.connectedAt() == null) {
      throw Status.INVALID_ARGUMENT
          .withDescription("the first message on a stream must be hello")
          .asRuntimeException();
    }
  }

  private void ended(AgentSession session) {
    if (session.ended()) {
      connections.remove(session);
      log.info("cluster {} disconnected", session.clusterId);
    }
  }

  private void signalRegistered(AgentRegistration r, RegisterRequest req) {
    try {
      temporal
          .newWorkflowStub(
              RegistrationWorkflow.class,
              RegistrationWorkflow.workflowId(r.registrationTokenId().toString()))
          .agentRegistered(
              new AgentRegistered(
                  r.agentTokenId().toString(),
                  req.getAgentVersion(),
                  req.getCapabilitiesList(),
                  r.acceptanceRequired()));
    } catch (RuntimeException e) {
      // Registration is already committed; the workflow learns it from the store at expiry.
      log.warn(
          "could not signal registration workflow for cluster {}: {}", r.clusterId(), e.toString());
    }
  }

  /**
   * Null when valid; otherwise "field: reason". Only an {@code authenticated} caller (an agent on
   * its Connect stream) is told the hub's version in the refusal of an incompatible agent.
   */
  static String validate(
      String clusterName, String agentVersion, List<String> capabilities, boolean authenticated) {
    if (!clusterName.isEmpty()) {
      Checks c = new Checks().dnsLabel("cluster_name", clusterName);
      if (!c.ok()) {
        return "cluster_name: must be an RFC 1123 label of at most 63 characters";
      }
    }
    if (agentVersion.isBlank() || agentVersion.length() > MAX_VERSION_LENGTH) {
      return "agent_version: is required (at most " + MAX_VERSION_LENGTH + " characters)";
    }
    var incompatible =
        authenticated
            ? VersionCompatibility.refusal(agentVersion, HubVersion.current())
            : VersionCompatibility.anonymousRefusal(agentVersion, HubVersion.current());
    if (incompatible.isPresent()) {
      return incompatible.get();
    }
    for (String capability : capabilities) {
      if (!Capabilities.isKnown(capability)) {
        return "capabilities: unknown capability '" + capability + "'; known: " + Capabilities.ALL;
      }
    }
    return null;
  }

  /** An incompatible agent is a precondition failure (upgrade it); anything else bad input. */
  private static Status statusFor(String problem) {
    return problem.contains("is not compatible with")
        ? Status.FAILED_PRECONDITION
        : Status.INVALID_ARGUMENT;
  }

  private static StatusRuntimeException unauthenticated() {
    return Status.UNAUTHENTICATED.withDescription(BAD_TOKEN).asRuntimeException();
  }

  /** Swallows messages on a stream that was refused. */
  private enum Drain implements StreamObserver<AgentMessage> {
    INSTANCE;

    @Override
    public void onNext(AgentMessage value) {}

    @Override
    public void onError(Throwable t) {}

    @Override
    public void onCompleted() {}
  }
}
