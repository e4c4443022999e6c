package dev.gitopshq.hub.cluster;

import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;

/** Request bodies of the clusters API. */
final class ClusterRequests {
  private ClusterRequests() {}

  /** The providers the registration dialog offers; anything else is refused. */
  static final Set<String> PROVIDERS =
      Set.of("eks", "gke", "aks", "on-prem", "openshift", "k3s", "kind", "other");

  /**
   * {@code POST /api/v2/clusters}. {@code requireAcceptance} decides for the first registration
   * token whether its agent waits for an admin's acceptance; absent: the organization's setting.
   */
  record Create(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      String displayName,
      String provider,
      String region,
      String environment,
      Map<String, String> labels,
      Boolean requireAcceptance) {

    void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.displayName("displayName", displayName, 128, false);
      if (provider != null && !provider.isEmpty() && !PROVIDERS.contains(provider)) {
        c.fail("provider", "must be one of " + new TreeSet<>(PROVIDERS));
      }
      c.text("region", region, 63);
      if (environment != null && !environment.isEmpty()) {
        c.dnsLabel("environment", environment);
      }
      c.labels("labels", labels);
      c.throwIfInvalid();
    }
  }

  /**
   * {@code POST /api/v2/clusters/{id}/join-token} (the body is optional): whether the agent that
   * registers with the new token waits for an admin's acceptance; absent: the organization's
   * setting.
   */
  record JoinToken(Boolean requireAcceptance) {}

  /** {@code PUT /api/v2/clusters/acceptance}: the organization's default for new registrations. */
  record AcceptancePolicy(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Boolean requireAcceptance) {
    void validate() {
      Checks c = new Checks();
      if (requireAcceptance == null) {
        c.fail("requireAcceptance", "is required (true or false)");
      }
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /api/v2/clusters/{id}}: only what is present changes. */
  record Update(String displayName, Map<String, String> labels) {
    void validate() {
      Checks c = new Checks();
      c.displayName("displayName", displayName, 128, false);
      c.labels("labels", labels);
      if (displayName == null && labels == null) {
        c.fail("body", "give displayName and/or labels");
      }
      c.throwIfInvalid();
    }
  }
}
