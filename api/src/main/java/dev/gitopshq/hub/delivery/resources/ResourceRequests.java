package dev.gitopshq.hub.delivery.resources;

import dev.gitopshq.activities.delivery.SourceKind;
import dev.gitopshq.hub.delivery.DeliveryChecks;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.HashSet;
import java.util.List;
import java.util.Map;

/**
 * Request bodies of the organization resources' API; each validates itself and names every bad
 * field.
 */
public final class ResourceRequests {
  private ResourceRequests() {}

  /** {@code POST /environments}. */
  public record EnvironmentCreate(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      String description,
      Integer position,
      Integer verifyTimeoutSeconds) {
    public void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.text("description", description, 1024);
      if (position != null && position < 0) {
        c.fail("position", "must be 0 or more");
      }
      verifyTimeout(c, verifyTimeoutSeconds);
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /environments/{name}}. */
  public record EnvironmentUpdate(String description, Integer verifyTimeoutSeconds) {
    public void validate() {
      Checks c = new Checks();
      if (description == null && verifyTimeoutSeconds == null) {
        c.fail("description", "is required unless verifyTimeoutSeconds is given");
      }
      c.text("description", description, 1024);
      verifyTimeout(c, verifyTimeoutSeconds);
      c.throwIfInvalid();
    }
  }

  /**
   * How long a deployment may wait for an environment's clusters to run it: 10 s to 24 h, or 0 to
   * stop verifying the environment's deployments.
   */
  static void verifyTimeout(Checks c, Integer seconds) {
    if (seconds != null && seconds != 0 && (seconds < 10 || seconds > 86_400)) {
      c.fail("verifyTimeoutSeconds", "must be 0 (no verification) or between 10 and 86400 seconds");
    }
  }

  /** The stored timeout: null for 0 or none. */
  static Integer verifyTimeoutOrNull(Integer seconds) {
    return seconds == null || seconds == 0 ? null : seconds;
  }

  /** {@code PUT /environments/order}: every environment's name, in the new order. */
  public record EnvironmentOrder(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) List<String> order) {
    public void validate(List<String> existing) {
      Checks c = new Checks();
      if (order == null) {
        c.fail("order", "is required");
      } else if (order.size() != existing.size()
          || new HashSet<>(order).size() != order.size()
          || !new HashSet<>(order).equals(new HashSet<>(existing))) {
        c.fail("order", "must name every environment exactly once: " + existing);
      }
      c.throwIfInvalid();
    }
  }

  /** {@code POST /tenants}. */
  public record TenantCreate(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name,
      String displayName,
      Map<String, String> labels) {
    public void validate() {
      Checks c = new Checks();
      c.dnsLabel("name", name);
      c.displayName("displayName", displayName, 128, false);
      c.labels("labels", labels);
      c.throwIfInvalid();
    }
  }

  /** {@code PATCH /tenants/{name}}: only what is present changes. */
  public record TenantUpdate(String displayName, Map<String, String> labels) {
    public void validate() {
      Checks c = new Checks();
      c.displayName("displayName", displayName, 128, false);
      c.labels("labels", labels);
      if (displayName == null && labels == null) {
        c.fail("body", "give displayName and/or labels");
      }
      c.throwIfInvalid();
    }
  }

  /** {@code POST} and {@code PUT /manifest-bundles} and {@code /kustomize-bases}. */
  public record SourceWrite(
      String name,
      String description,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Map<String, String> files) {
    public void validate(SourceKind kind, String pathName) {
      Checks c = new Checks();
      if (pathName == null) {
        c.dnsLabel("name", name);
      } else if (name != null && !name.equals(pathName)) {
        c.fail("name", "must match the name in the path (renaming is not supported)");
      }
      c.text("description", description, 1024);
      DeliveryChecks.files(c, kind, files);
      c.throwIfInvalid();
    }
  }

  /** {@code PUT /variables/{key}}. */
  public record VariableValue(@Schema(requiredMode = Schema.RequiredMode.REQUIRED) String value) {
    public void validate(String key) {
      Checks c = new Checks();
      DeliveryChecks.variableKey(c, "key", key);
      DeliveryChecks.variableValue(c, "value", value);
      c.throwIfInvalid();
    }
  }
}
