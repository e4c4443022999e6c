package dev.gitopshq.hub.command;

import dev.gitopshq.agent.v1.CommandParams;
import dev.gitopshq.agent.v1.CommandTypeSpec;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.Map;
import java.util.regex.Pattern;

/**
 * Request bodies of the commands API, and their validation. A command's type, target kind and
 * params are checked against its declaration in command_types.proto ({@link CommandTypes}).
 */
public final class CommandRequests {
  private CommandRequests() {}

  static final int MIN_JUSTIFICATION = 20;
  private static final Pattern DNS_SUBDOMAIN =
      Pattern.compile("[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*");

  public record Target(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String namespace,
      String kind,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String name) {}

  public record BreakGlass(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String justification) {}

  /** {@code POST /api/v2/clusters/{id}/commands}. */
  public record Create(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String type,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Target target,
      Map<String, Object> params,
      String reason,
      BreakGlass breakGlass) {

    /** Validates everything and returns the params as strings for the workflow. */
    Map<String, String> validate() {
      Checks c = new Checks();
      CommandTypeSpec spec = CommandTypes.spec(type).orElse(null);
      if (spec == null) {
        c.fail("type", "must be one of " + String.join(", ", CommandTypes.ALL));
      } else if (!spec.getRequestedElsewhere().isEmpty()) {
        c.fail("type", spec.getName() + " " + spec.getRequestedElsewhere());
        c.throwIfInvalid();
      }
      if (target == null) {
        c.fail("target", "is required: {namespace, kind, name}");
      } else {
        c.dnsLabel("target.namespace", target.namespace());
        if (spec != null
            && spec.getTargetKindsCount() > 0
            && !spec.getTargetKindsList().contains(target.kind())) {
          c.fail(
              "target.kind",
              "must be "
                  + String.join(" or ", spec.getTargetKindsList())
                  + " for a "
                  + type
                  + " command");
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
      Map<String, String> out = Map.of();
      if (spec != null) {
        CommandParams.Checked checked = CommandParams.check(spec, params);
        checked.problems().forEach(p -> c.fail(p.field(), p.message()));
        out = checked.values();
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
  }
}
