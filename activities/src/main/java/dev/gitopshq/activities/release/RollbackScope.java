package dev.gitopshq.activities.release;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.util.ArrayList;
import java.util.List;

/**
 * What a rollback restores: every file of the environments ({@code all}), or the unit directories
 * {@code <cluster>/<tenant>/<service>} matched by at least one entry. An entry's missing field
 * matches everything: {@code {environment: staging, tenant: acme}} is every service of acme in
 * staging, {@code {service: web}} is web of every tenant in every environment of the rollback.
 * Kustomize bases ({@code _bases/}) and anything else outside unit directories are restored only
 * with {@code all}.
 *
 * <p>Stored in {@code releases.scope} as the API receives it: {@code "all"} or a JSON array of
 * entries.
 */
public record RollbackScope(boolean all, List<Entry> entries) {
  private static final ObjectMapper JSON = new ObjectMapper();

  /** Every file of every environment of the rollback. */
  public static final RollbackScope ALL = new RollbackScope(true, List.of());

  public RollbackScope {
    entries = all ? List.of() : List.copyOf(entries);
    if (!all && entries.isEmpty()) {
      throw new IllegalArgumentException("a rollback scope is all or at least one entry");
    }
  }

  /** One part of a scope; a null field matches every value. At least one field is set. */
  public record Entry(String environment, String tenant, String service) {
    public Entry {
      if (environment == null && tenant == null && service == null) {
        throw new IllegalArgumentException("a scope entry names an environment, tenant or service");
      }
    }

    public boolean appliesTo(String env) {
      return environment == null || environment.equals(env);
    }

    /**
     * Whether the unit of {@code tenant} and {@code service} is in this entry (environment aside).
     */
    public boolean covers(String tenant, String service) {
      return (this.tenant == null || this.tenant.equals(tenant))
          && (this.service == null || this.service.equals(service));
    }

    /** e.g. {@code tenant acme, service web}; empty for an environment-only entry. */
    public String label() {
      List<String> parts = new ArrayList<>();
      if (tenant != null) {
        parts.add("tenant " + tenant);
      }
      if (service != null) {
        parts.add("service " + service);
      }
      return String.join(", ", parts);
    }
  }

  public static RollbackScope of(List<Entry> entries) {
    return new RollbackScope(false, entries);
  }

  /** The entries that apply in {@code environment}. */
  public List<Entry> forEnvironment(String environment) {
    return entries.stream().filter(e -> e.appliesTo(environment)).toList();
  }

  /** Whether the scope restores anything in {@code environment}. */
  public boolean touches(String environment) {
    return all || !forEnvironment(environment).isEmpty();
  }

  /** Whether the unit {@code <cluster>/<tenant>/<service>} in {@code environment} is restored. */
  public boolean covers(String environment, String tenant, String service) {
    return all || forEnvironment(environment).stream().anyMatch(e -> e.covers(tenant, service));
  }

  /**
   * For commit messages: empty for all (or an environment-only entry), else e.g. {@code (tenant
   * acme, service web)}; several entries are separated by semicolons.
   */
  public String label(String environment) {
    if (all) {
      return "";
    }
    List<String> labels = new ArrayList<>();
    for (Entry e : forEnvironment(environment)) {
      if (e.label().isEmpty()) {
        return "";
      }
      labels.add(e.label());
    }
    return labels.isEmpty() ? "" : "(" + String.join("; ", labels) + ")";
  }

  /** As stored and shown: {@code "all"} or an array of entries without null fields. */
  public JsonNode toJsonNode() {
    if (all) {
      return JSON.getNodeFactory().textNode("all");
    }
    ArrayNode a = JSON.createArrayNode();
    for (Entry e : entries) {
      ObjectNode o = a.addObject();
      if (e.environment() != null) {
        o.put("environment", e.environment());
      }
      if (e.tenant() != null) {
        o.put("tenant", e.tenant());
      }
      if (e.service() != null) {
        o.put("service", e.service());
      }
    }
    return a;
  }

  public String toJson() {
    return toJsonNode().toString();
  }

  /** Reads a stored scope (null: not a rollback). */
  public static RollbackScope fromJson(String json) {
    if (json == null) {
      return null;
    }
    try {
      JsonNode n = JSON.readTree(json);
      if (n.isTextual() && n.asText().equals("all")) {
        return ALL;
      }
      List<Entry> entries = new ArrayList<>();
      for (JsonNode e : n) {
        entries.add(new Entry(text(e, "environment"), text(e, "tenant"), text(e, "service")));
      }
      return of(entries);
    } catch (JsonProcessingException e) {
      throw new IllegalStateException("stored rollback scope is not JSON", e);
    }
  }

  private static String text(JsonNode o, String field) {
    JsonNode v = o.get(field);
    return v == null || v.isNull() ? null : v.asText();
  }
}
