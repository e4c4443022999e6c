package dev.gitopshq.hub.gateway;

import static dev.gitopshq.hub.HubTestSupport.OWNER_TOKEN;
import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;
import static org.awaitility.Awaitility.await;

import com.fasterxml.jackson.databind.JsonNode;
import com.google.protobuf.ByteString;
import dev.gitopshq.agent.Agent;
import dev.gitopshq.agent.config.AgentConfig;
import dev.gitopshq.agent.v1.AgentHubGrpc;
import dev.gitopshq.agent.v1.AgentMessage;
import dev.gitopshq.agent.v1.ClientCertificate;
import dev.gitopshq.agent.v1.Hello;
import dev.gitopshq.agent.v1.HubMessage;
import dev.gitopshq.agent.v1.RegisterRequest;
import dev.gitopshq.agent.v1.RegisterResponse;
import dev.gitopshq.agent.v1.RenewCertificateRequest;
import dev.gitopshq.hub.GatewayTlsFiles;
import dev.gitopshq.hub.HubTestSupport;
import dev.gitopshq.hub.config.PgListener;
import dev.gitopshq.testkube.TestKube;
import io.grpc.ChannelCredentials;
import io.grpc.ManagedChannel;
import io.grpc.Metadata;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.grpc.TlsChannelCredentials;
import io.grpc.netty.shaded.io.grpc.netty.NettyChannelBuilder;
import io.grpc.stub.MetadataUtils;
import io.grpc.stub.StreamObserver;
import java.io.ByteArrayInputStream;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.security.spec.ECGenParameterSpec;
import java.time.Duration;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.openssl.jcajce.JcaPEMWriter;
import org.bouncycastle.openssl.jcajce.JcaPKCS8Generator;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;
import org.bouncycastle.pkcs.jcajce.JcaPKCS10CertificationRequestBuilder;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Certificate identity for agents over a real TLS gateway: Register with a CSR returns a client
 * certificate of the organization's CA naming the cluster; Connect with that certificate and the
 * cluster's token is welcomed; another cluster's certificate, a revoked one, or none where the
 * organization requires one is UNAUTHENTICATED; a revocation ends the live stream at once.
 */
class AgentCertificateIT {
  static Path dir;
  static HubTestSupport hub;
  static final List<ManagedChannel> channels = new ArrayList<>();

  @BeforeAll
  static void start() throws Exception {
    dir = GatewayTlsFiles.create("gitopshq-mtls");
    hub =
        new HubTestSupport()
            .property("gitopshq.agent.tls-cert-file", dir.resolve("hub.crt"))
            .property("gitopshq.agent.tls-key-file", dir.resolve("hub.key"))
            .property("gitopshq.agent.certificate-validity", "2h")
            .property("gitopshq.agent.sweep-millis", 60_000)
            .start();
    // The sweep runs once a minute here, so revocation is seen through the notification alone:
    // wait until the hub listens for them.
    PgListener listener = hub.context().getBean(PgListener.class);
    await().atMost(Duration.ofSeconds(30)).until(listener::listening);
  }

  @AfterAll
  static void stop() {
    channels.forEach(ManagedChannel::shutdownNow);
    if (hub != null) {
      hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of("requireCertificate", false));
      hub.close();
    }
  }

  /** An agent's side: its key, and the certificate the hub gave it (if any). */
  static final class Caller {
    final KeyPair keys;
    final String clusterId;
    final String clusterName;
    final String registrationToken;
    String agentToken;
    ClientCertificate certificate;

    Caller() throws Exception {
      KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
      g.initialize(new ECGenParameterSpec("secp256r1"));
      keys = g.generateKeyPair();
      clusterName = "mtls-" + UUID.randomUUID().toString().substring(0, 8);
      JsonNode body = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", clusterName)).body();
      clusterId = body.get("cluster").get("id").asText();
      registrationToken = body.get("registrationToken").asText();
    }

    ByteString csr() throws Exception {
      return ByteString.copyFrom(
          pem(
              new JcaPKCS10CertificationRequestBuilder(
                      new X500Name("CN=whatever"), keys.getPublic())
                  .build(new JcaContentSignerBuilder("SHA256withECDSA").build(keys.getPrivate()))),
          StandardCharsets.US_ASCII);
    }

    Caller register() throws Exception {
      RegisterResponse r =
          stub(channel(null), registrationToken)
              .register(request(clusterName).setCertificateRequest(csr()).build());
      agentToken = r.getAgentToken();
      certificate = r.getClientCertificate();
      return this;
    }

    String keyPem() throws Exception {
      return pem(new JcaPKCS8Generator(keys.getPrivate(), null));
    }
  }

  static RegisterRequest.Builder request(String name) {
    return RegisterRequest.newBuilder().setClusterName(name).setAgentVersion("0.1.0");
  }

  static String pem(Object o) throws Exception {
    StringWriter out = new StringWriter();
    try (JcaPEMWriter w = new JcaPEMWriter(out)) {
      w.writeObject(o);
    }
    return out.toString();
  }

  /** A TLS channel trusting the test CA, presenting {@code as}'s certificate when given. */
  static ManagedChannel channel(Caller as) throws Exception {
    TlsChannelCredentials.Builder tls =
        TlsChannelCredentials.newBuilder().trustManager(dir.resolve("ca.crt").toFile());
    if (as != null) {
      tls.keyManager(
          new ByteArrayInputStream(
              as.certificate.getCertificatePem().getBytes(StandardCharsets.US_ASCII)),
          new ByteArrayInputStream(as.keyPem().getBytes(StandardCharsets.US_ASCII)));
    }
    ChannelCredentials creds = tls.build();
    ManagedChannel c = NettyChannelBuilder.forTarget(hub.grpcAddress(), creds).build();
    channels.add(c);
    return c;
  }

  static AgentHubGrpc.AgentHubBlockingStub stub(ManagedChannel c, String token) {
    return AgentHubGrpc.newBlockingStub(c)
        .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer(token)))
        .withDeadlineAfter(10, TimeUnit.SECONDS);
  }

  static Metadata bearer(String token) {
    Metadata md = new Metadata();
    md.put(Metadata.Key.of("authorization", Metadata.ASCII_STRING_MARSHALLER), "Bearer " + token);
    return md;
  }

  static final class Stream implements StreamObserver<HubMessage> {
    final BlockingQueue<HubMessage> received = new LinkedBlockingQueue<>();
    final CountDownLatch closed = new CountDownLatch(1);
    volatile Status status;

    static Stream open(ManagedChannel c, String token) {
      Stream s = new Stream();
      StreamObserver<AgentMessage> out =
          AgentHubGrpc.newStub(c)
              .withInterceptors(MetadataUtils.newAttachHeadersInterceptor(bearer(token)))
              .connect(s);
      out.onNext(
          AgentMessage.newBuilder()
              .setHello(Hello.newBuilder().setAgentVersion("0.1.0").setHeartbeatIntervalSeconds(30))
              .build());
      return s;
    }

    boolean welcomed() throws InterruptedException {
      HubMessage m = received.poll(10, TimeUnit.SECONDS);
      return m != null && m.hasWelcome();
    }

    Status.Code closedWith() throws InterruptedException {
      assertThat(closed.await(10, TimeUnit.SECONDS)).as("the stream ended").isTrue();
      return status.getCode();
    }

    @Override
    public void onNext(HubMessage value) {
      received.add(value);
    }

    @Override
    public void onError(Throwable t) {
      status = Status.fromThrowable(t);
      closed.countDown();
    }

    @Override
    public void onCompleted() {
      status = Status.OK;
      closed.countDown();
    }
  }

  static X509Certificate x509(String pem) throws Exception {
    return (X509Certificate)
        CertificateFactory.getInstance("X.509")
            .generateCertificate(new ByteArrayInputStream(pem.getBytes(StandardCharsets.UTF_8)));
  }

  @Test
  void registerWithACsrReturnsACertificateOfTheOrganizationsCaNamingTheCluster() throws Exception {
    Caller a = new Caller().register();
    X509Certificate cert = x509(a.certificate.getCertificatePem());
    X509Certificate ca = x509(a.certificate.getCaCertificatePem());
    cert.verify(ca.getPublicKey());
    assertThat(cert.getSubjectX500Principal().getName()).contains("CN=" + a.clusterId);
    assertThat(cert.getPublicKey()).isEqualTo(a.keys.getPublic());
    assertThat(cert.getNotAfter().getTime() - System.currentTimeMillis())
        .isBetween(TimeUnit.MINUTES.toMillis(115), TimeUnit.MINUTES.toMillis(121));
    // The CA the API shows is the one that signed it.
    JsonNode caView = hub.get("/api/v2/agent-ca", OWNER_TOKEN).body();
    assertThat(x509(caView.get("certificatePem").asText())).isEqualTo(ca);
    assertThat(caView.get("certificateValiditySeconds").asLong()).isEqualTo(7200);
    // And the cluster shows it as its current certificate.
    JsonNode shown =
        hub.get("/api/v2/clusters/" + a.clusterId + "/certificate", OWNER_TOKEN).body();
    assertThat(shown.get("current").get("serial").asText()).isEqualTo(a.certificate.getSerial());
    assertThat(shown.get("current").get("status").asText()).isEqualTo("valid");
  }

  @Test
  void aGarbageCsrIsInvalidArgumentAndLeavesTheRegistrationTokenUnused() throws Exception {
    Caller a = new Caller();
    assertThatThrownBy(
            () ->
                stub(channel(null), a.registrationToken)
                    .register(
                        request(a.clusterName)
                            .setCertificateRequest(ByteString.copyFromUtf8("garbage"))
                            .build()))
        .isInstanceOfSatisfying(
            StatusRuntimeException.class,
            e -> {
              assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.INVALID_ARGUMENT);
              assertThat(e.getStatus().getDescription()).startsWith("certificate_request:");
            });
    a.register();
    assertThat(a.certificate.getSerial()).isNotEmpty();
  }

  @Test
  void connectWithTheClustersCertificateAndTokenIsWelcomed() throws Exception {
    Caller a = new Caller().register();
    Stream s = Stream.open(channel(a), a.agentToken);
    assertThat(s.welcomed()).isTrue();
  }

  @Test
  void anotherClustersCertificateWithThisClustersTokenIsUnauthenticated() throws Exception {
    Caller a = new Caller().register();
    Caller b = new Caller().register();
    Stream s = Stream.open(channel(b), a.agentToken);
    assertThat(s.closedWith()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(s.status.getDescription()).contains("another cluster");
  }

  @Test
  void revokingTheCertificateEndsTheLiveStreamAndRefusesItAfterwards() throws Exception {
    Caller a = new Caller().register();
    Stream s = Stream.open(channel(a), a.agentToken);
    assertThat(s.welcomed()).isTrue();
    JsonNode revoked =
        hub.post("/api/v2/clusters/" + a.clusterId + "/certificate/revoke", OWNER_TOKEN, Map.of())
            .body();
    assertThat(revoked.get("revoked").get(0).asText()).isEqualTo(a.certificate.getSerial());
    // The sweep runs once a minute here: the notification closes it at once.
    assertThat(s.closedWith()).isEqualTo(Status.Code.UNAUTHENTICATED);
    Stream again = Stream.open(channel(a), a.agentToken);
    assertThat(again.closedWith()).isEqualTo(Status.Code.UNAUTHENTICATED);
    assertThat(again.status.getDescription()).contains("revoked");
    JsonNode shown =
        hub.get("/api/v2/clusters/" + a.clusterId + "/certificate", OWNER_TOKEN).body();
    assertThat(shown.path("current").path("serial").isMissingNode()).as("no current one").isTrue();
    assertThat(shown.get("certificates").get(0).get("status").asText()).isEqualTo("revoked");
    assertThat(shown.get("certificates").get(0).get("revokedBy").asText()).isNotBlank();
  }

  @Test
  void renewalIssuesANewCertificateThatConnects() throws Exception {
    Caller a = new Caller().register();
    ClientCertificate renewed =
        stub(channel(a), a.agentToken)
            .renewCertificate(
                RenewCertificateRequest.newBuilder().setCertificateRequest(a.csr()).build());
    assertThat(renewed.getSerial()).isNotEqualTo(a.certificate.getSerial());
    a.certificate = renewed;
    assertThat(Stream.open(channel(a), a.agentToken).welcomed()).isTrue();
  }

  @Test
  void whenTheOrganizationRequiresACertificateATokenAloneIsRefused() throws Exception {
    Caller a = new Caller().register();
    assertThat(
            hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of("requireCertificate", true))
                .status())
        .isEqualTo(200);
    try {
      Stream tokenOnly = Stream.open(channel(null), a.agentToken);
      assertThat(tokenOnly.closedWith()).isEqualTo(Status.Code.UNAUTHENTICATED);
      assertThat(tokenOnly.status.getDescription()).contains("requires a client certificate");
      // Nor can a token alone get itself a certificate.
      assertThatThrownBy(
              () ->
                  stub(channel(null), a.agentToken)
                      .renewCertificate(
                          RenewCertificateRequest.newBuilder()
                              .setCertificateRequest(a.csr())
                              .build()))
          .isInstanceOfSatisfying(
              StatusRuntimeException.class,
              e -> assertThat(e.getStatus().getCode()).isEqualTo(Status.Code.UNAUTHENTICATED));
      assertThat(Stream.open(channel(a), a.agentToken).welcomed()).isTrue();
    } finally {
      hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of("requireCertificate", false));
    }
  }

  @Test
  void theCaPolicyNeedsAValueAndOrgWrite() {
    assertThat(hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of()).status()).isEqualTo(400);
    assertThat(
            hub.get("/api/v2/clusters/" + UUID.randomUUID() + "/certificate", OWNER_TOKEN).status())
        .isEqualTo(404);
  }

  @Test
  void theRealAgentRegistersWithACertificateAndStaysConnectedWhenTheOrganizationRequiresOne()
      throws Exception {
    String name = "mtls-agent-" + UUID.randomUUID().toString().substring(0, 6);
    JsonNode created = hub.post("/api/v2/clusters", OWNER_TOKEN, Map.of("name", name)).body();
    String id = created.get("cluster").get("id").asText();
    Path identity = Files.createTempDirectory("agent").resolve("id.json");
    Map<String, String> env = new HashMap<>();
    env.put(AgentConfig.HUB_ADDRESS, hub.grpcAddress());
    env.put(AgentConfig.HUB_CA_FILE, dir.resolve("ca.crt").toString());
    env.put(AgentConfig.AGENT_TOKEN_PATH, identity.toString());
    env.put(AgentConfig.CLUSTER_NAME, name);
    env.put(AgentConfig.STATUS_INTERVAL_SECONDS, "1");
    env.put(AgentConfig.RECONNECT_MAX_SECONDS, "1");
    env.put(AgentConfig.REGISTRATION_TOKEN, created.get("registrationToken").asText());
    try (TestKube kube = TestKube.start()) {
      try (Agent agent = Agent.start(AgentConfig.fromEnv(env), kube::client)) {
        assertThat(agent.awaitConnected(Duration.ofSeconds(30))).isTrue();
      }
      JsonNode shown = hub.get("/api/v2/clusters/" + id + "/certificate", OWNER_TOKEN).body();
      String serial = shown.get("current").get("serial").asText();
      // The identity file keeps the key and certificate next to the token.
      assertThat(Files.readString(identity)).contains("clientCertificatePem", "clientKeyPem");
      hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of("requireCertificate", true));
      try {
        env.remove(AgentConfig.REGISTRATION_TOKEN);
        try (Agent agent = Agent.start(AgentConfig.fromEnv(env), kube::client)) {
          assertThat(agent.awaitConnected(Duration.ofSeconds(30)))
              .as("the restarted agent presents its stored certificate")
              .isTrue();
        }
        assertThat(
                hub.get("/api/v2/clusters/" + id + "/certificate", OWNER_TOKEN)
                    .body()
                    .get("current")
                    .get("serial")
                    .asText())
            .isEqualTo(serial);
      } finally {
        hub.send("PUT", "/api/v2/agent-ca", OWNER_TOKEN, Map.of("requireCertificate", false));
      }
    }
  }
}
