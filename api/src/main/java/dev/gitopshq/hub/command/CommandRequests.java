package dev.gitopshq.hub.command;

import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.web.Checks;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

/** Request bodies of the commands API, and their validation. */
public final class CommandRequests {
  private CommandRequests() {}

  /** The command types, from the protocol's {@link dev.gitopshq.agent.v1.CommandTypes}. */
  static final Set<String> TYPES = Set.copyOf(CommandTypes.ALL);

  static final int MAX_REPLICAS = 1000;
  static final int MIN_JUSTIFICATION = 20;
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public record Target(String namespace, String kind, String name) {}

  public record BreakGlass(String justification) {}

  /** {@code POST /api/v2/clusters/{id}/commands}. */
  public record Create(
      String type,
      Target target,
      Map<String, Object> params,
      String reason,
      BreakGlass breakGlass) {

    /** Validates everything and returns the params as strings for the workflow. */
    Map<String, String> validate() {
      Checks c = new Checks();
      if (type == null || !TYPES.contains(type)) {
        c.fail("type", "must be one of " + String.join(", ", CommandTypes.ALL));
      } else if (CommandTypes.RESOLVE_DRIFT.equals(type)) {
        c.fail(
            "type",
            "resolve-drift is requested for a drift finding:"
                + " POST /api/v2/clusters/{id}/drift/{findingId}/resolve");
        c.throwIfInvalid();
      }
      String kind =
          "sync".equals(type) || "rollback".equals(type) || "refresh".equals(type)
              ? "Application"
              : "Deployment";
      if (target == null) {
        c.fail("target", "is required: {namespace, kind, name}");
      } else {
        c.dnsLabel("target.namespace", target.namespace());
        // type may be null here (already reported): Set.contains(null) would throw.
        if (type != null && TYPES.contains(type) && !kind.equals(target.kind())) {
          c.fail("target.kind", "must be " + kind + " for a " + type + " command");
        }
        if (target.name() == null || target.name().isEmpty()) {
          c.fail("target.name", "is required");
        } else if (target.name().length() > 253
            || !DNS_SUBDOMAIN.matcher(target.name()).matches()) {
          c.fail(
              "target.name",
              "must be a Kubernetes object name (RFC 1123 subdomain, at most 253 characters)");
        }
      }
      Map<String, String> out = new LinkedHashMap<>();
      Map<String, Object> p = params == null ? Map.of() : params;
      switch (type == null ? "" : type) {
        case "scale" -> {
          Object r = p.get("replicas");
          if (r == null) {
            c.fail("params.replicas", "is required for scale");
          } else if (!(r instanceof Integer n) || n < 0 || n > MAX_REPLICAS) {
            c.fail("params.replicas", "must be a whole number from 0 to " + MAX_REPLICAS);
          } else {
            out.put("replicas", Integer.toString(n));
          }
          unknown(c, p, Set.of("replicas"));
        }
        case "rollback" -> {
          Object rev = p.get("revision");
          Object hist = p.get("historyId");
          if ((rev == null) == (hist == null)) {
            c.fail("params", "give exactly one of revision or historyId for rollback");
          }
          if (rev != null) {
            if (!(rev instanceof String s) || s.isBlank() || s.length() > 255) {
              c.fail("params.revision", "must be a Git revision of at most 255 characters");
            } else {
              out.put("revision", s);
            }
          }
          if (hist != null) {
            if (!(hist instanceof Integer n) || n < 0) {
              c.fail(
                  "params.historyId",
                  "must be a whole number from the Application's status.history");
            } else {
              out.put("historyId", Integer.toString(n));
            }
          }
          unknown(c, p, Set.of("revision", "historyId"));
        }
        case "sync" -> {
          Object rev = p.get("revision");
          if (rev != null) {
            if (!(rev instanceof String s) || s.isBlank() || s.length() > 255) {
              c.fail("params.revision", "must be a Git revision of at most 255 characters");
            } else {
              out.put("revision", s);
            }
          }
          unknown(c, p, Set.of("revision"));
        }
        case "restart", "refresh" -> unknown(c, p, Set.of());
        default -> {
          // The type error above says it all.
        }
      }
      c.text("reason", reason, 1024);
      if (breakGlass != null) {
        String j = breakGlass.justification() == null ? "" : breakGlass.justification().trim();
        if (j.length() < MIN_JUSTIFICATION) {
          c.fail(
              "breakGlass.justification",
              "must explain the emergency in at least " + MIN_JUSTIFICATION + " characters");
        } else {
          c.text("breakGlass.justification", j, 2048);
        }
      }
      c.throwIfInvalid();
      return out;
    }

    private static void unknown(Checks c, Map<String, Object> p, Set<String> allowed) {
      for (String k : p.keySet()) {
        if (!allowed.contains(k)) {
          c.fail("params." + k, "is not a parameter of this command type");
        }
      }
    }
  }
}
