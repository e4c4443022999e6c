package dev.gitopshq.cli;

import static org.assertj.core.api.Assertions.assertThat;

import java.nio.file.Path;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** Agents' client certificates from the command line, against a stand-in for the hub. */
class CertificateCliTest {
  static final String CLUSTER = "44444444-4444-4444-4444-444444444444";
  static final String LIST = "{\"items\":[{\"id\":\"" + CLUSTER + "\",\"name\":\"edge-2\"}]}";

  static String certificates(String status) {
    return "{\"required\":false,\"certificates\":[{\"serial\":\"5a3f\",\"status\":\""
        + status
        + "\",\"notBefore\":\"2026-11-27T00:00:00Z\",\"notAfter\":\"2026-11-28T00:00:00Z\"}]}";
  }

  @TempDir Path tmp;
  final FakeHub hub = new FakeHub();

  @AfterEach
  void stop() {
    hub.close();
  }

  @Test
  void showListsTheClustersCertificatesWithTheirStatus() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer("GET /api/v2/clusters/" + CLUSTER + "/certificate", certificates("valid"));

    Run.Result r = hub.run(tmp, "clusters", "certificate", "show", "edge-2");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.out()).contains("5a3f").contains("valid").contains("2026-11-28T00:00:00Z");
  }

  @Test
  void revokePostsAndSaysTheStreamEnds() {
    hub.answer("GET /api/v2/clusters", LIST);
    hub.answer(
        "POST /api/v2/clusters/" + CLUSTER + "/certificate/revoke", "{\"revoked\":[\"5a3f\"]}");
    hub.answer("GET /api/v2/clusters/" + CLUSTER + "/certificate", certificates("revoked"));

    Run.Result r = hub.run(tmp, "cluster", "cert", "revoke", "edge-2");

    assertThat(r.code()).as(r.toString()).isZero();
    assertThat(r.err()).contains("revoked 1 client certificate(s) of edge-2");
    assertThat(r.out()).contains("revoked");
  }

  @Test
  void caSetsTheRequirementAndPrintsThePem() {
    hub.answer(
        "PUT /api/v2/agent-ca",
        "{\"requireCertificate\":true,\"certificatePem\":\"-----BEGIN CERTIFICATE-----\\nMIIB\\n"
            + "-----END CERTIFICATE-----\\n\",\"certificateValiditySeconds\":86400}");
    hub.answer(
        "GET /api/v2/agent-ca",
        "{\"requireCertificate\":true,\"certificatePem\":\"-----BEGIN CERTIFICATE-----\\nMIIB\\n"
            + "-----END CERTIFICATE-----\\n\"}");

    Run.Result set = hub.run(tmp, "clusters", "certificate", "ca", "--require", "true");
    assertThat(set.code()).as(set.toString()).isZero();
    assertThat(hub.received.get("PUT /api/v2/agent-ca").toString())
        .isEqualTo("{\"requireCertificate\":true}");
    assertThat(set.out()).contains("86400");

    Run.Result pem = hub.run(tmp, "clusters", "certificate", "ca", "--pem");
    assertThat(pem.out()).startsWith("-----BEGIN CERTIFICATE-----");
  }

  @Test
  void showWithoutAClusterIsAUsageError() {
    Run.Result r = hub.run(tmp, "clusters", "certificate", "show");
    assertThat(r.code()).isEqualTo(ExitCode.USAGE);
  }
}
