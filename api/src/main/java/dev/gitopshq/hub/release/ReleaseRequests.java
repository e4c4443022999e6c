package dev.gitopshq.hub.release;

import com.fasterxml.jackson.databind.JsonNode;
import dev.gitopshq.activities.release.RollbackScope;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

/** Request bodies of the releases API, and their validation. */
final class ReleaseRequests {
  private ReleaseRequests() {}

  static final int MAX_DESCRIPTION = 2048;
  static final int MAX_JUSTIFICATION = 2048;
  static final int MAX_SCOPE_ENTRIES = 100;
  private static final Set<String> SCOPE_FIELDS = Set.of("environment", "tenant", "service");

  /** {@code POST /api/v2/projects/{id}/releases}. */
  record Create(String description, String environment, Boolean breakGlass, String justification) {
    void validate() {
      Checks c = new Checks().text("description", description, MAX_DESCRIPTION);
      if (environment != null) {
        c.dnsLabel("environment", environment);
      }
      ReleaseRequests.breakGlass(c, breakGlass, justification);
      c.throwIfInvalid();
    }
  }

  /** {@code POST /api/v2/projects/{id}/releases/{number}/promote}. */
  record Promote(String environment, Boolean breakGlass, String justification) {
    void validate() {
      Checks c = new Checks();
      if (environment != null) {
        c.dnsLabel("environment", environment);
      }
      ReleaseRequests.breakGlass(c, breakGlass, justification);
      c.throwIfInvalid();
    }
  }

  /** {@code POST /api/v2/projects/{id}/rollbacks}. */
  record Rollback(
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) Integer toRelease,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) JsonNode scope,
      String description,
      Boolean breakGlass,
      String justification) {
    /** Validates the body and returns the scope. */
    RollbackScope validate() {
      Checks c = new Checks().text("description", description, MAX_DESCRIPTION);
      if (toRelease == null) {
        c.fail("toRelease", "is required: the number of the release to roll back to");
      } else if (toRelease < 1) {
        c.fail("toRelease", "must be a release number (1 or more)");
      }
      ReleaseRequests.breakGlass(c, breakGlass, justification);
      RollbackScope s = ReleaseRequests.scope(c, scope);
      c.throwIfInvalid();
      return s;
    }
  }

  static void breakGlass(Checks c, Boolean breakGlass, String justification) {
    c.text("justification", justification, MAX_JUSTIFICATION);
    if (Boolean.TRUE.equals(breakGlass)) {
      if (justification == null || justification.isBlank()) {
        c.fail("justification", "is required with breakGlass: say why this cannot wait");
      }
    } else if (justification != null) {
      c.fail("justification", "is only taken with breakGlass: true");
    }
  }

  /** Parses {@code "all"} or {@code [{environment?, tenant?, service?}]}, naming each bad field. */
  static RollbackScope scope(Checks c, JsonNode scope) {
    if (scope == null || scope.isNull()) {
      c.fail("scope", "is required: \"all\" or a list of {environment?, tenant?, service?}");
      return null;
    }
    if (scope.isTextual()) {
      if (scope.asText().equals("all")) {
        return RollbackScope.ALL;
      }
      c.fail("scope", "must be \"all\" or a list of {environment?, tenant?, service?}");
      return null;
    }
    if (!scope.isArray() || scope.isEmpty()) {
      c.fail("scope", "must be \"all\" or a non-empty list of {environment?, tenant?, service?}");
      return null;
    }
    if (scope.size() > MAX_SCOPE_ENTRIES) {
      c.fail("scope", "must have at most " + MAX_SCOPE_ENTRIES + " entries");
      return null;
    }
    List<RollbackScope.Entry> entries = new ArrayList<>();
    boolean ok = true;
    for (int i = 0; i < scope.size(); i++) {
      JsonNode e = scope.get(i);
      String at = "scope[" + i + "]";
      if (!e.isObject()) {
        c.fail(at, "must be an object {environment?, tenant?, service?}");
        ok = false;
        continue;
      }
      for (Iterator<String> it = e.fieldNames(); it.hasNext(); ) {
        String f = it.next();
        if (!SCOPE_FIELDS.contains(f)) {
          c.fail(at + "." + f, "is not a scope field: use environment, tenant and service");
          ok = false;
        }
      }
      String env = label(c, e, at, "environment");
      String tenant = label(c, e, at, "tenant");
      String service = label(c, e, at, "service");
      if (env == null && tenant == null && service == null) {
        if (!e.has("environment") && !e.has("tenant") && !e.has("service")) {
          c.fail(at, "must name at least one of environment, tenant, service");
        }
        ok = false;
        continue;
      }
      entries.add(new RollbackScope.Entry(env, tenant, service));
    }
    return ok && c.ok() ? RollbackScope.of(entries) : null;
  }

  private static String label(Checks c, JsonNode entry, String at, String field) {
    JsonNode v = entry.get(field);
    if (v == null || v.isNull()) {
      return null;
    }
    if (!v.isTextual()) {
      c.fail(at + "." + field, "must be a name (a string)");
      return null;
    }
    Checks inner = new Checks().dnsLabel(at + "." + field, v.asText());
    if (!inner.ok()) {
      c.dnsLabel(at + "." + field, v.asText());
      return null;
    }
    return v.asText();
  }
}
