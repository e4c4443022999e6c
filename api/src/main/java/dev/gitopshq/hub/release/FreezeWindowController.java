package dev.gitopshq.hub.release;

import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.activities.policy.FreezeService;
import dev.gitopshq.activities.policy.FreezeWindowRow;
import dev.gitopshq.agent.v1.CommandTypes;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.team.Access;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import io.swagger.v3.oas.annotations.media.Schema;
import java.time.Clock;
import java.time.Instant;
import java.time.OffsetDateTime;
import java.time.format.DateTimeParseException;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.web.bind.annotation.DeleteMapping;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestMapping;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * {@code /api/v2/freeze-windows}: the organization's freeze windows, the data of the {@code
 * gitopshq.freeze} policy. While a window covers the current time, deployments into its environment
 * (or every environment) of its project (or every project) are blocked unless they are break-glass.
 * Environments and projects are named, not referenced by id.
 */
@RestController
@RequestMapping("/api/v2/freeze-windows")
public class FreezeWindowController {
  static final int MAX_REASON = 500;

  private final FreezeService freezes;
  private final Clock clock;
  private final Access access;

  public FreezeWindowController(FreezeService freezes, Clock clock, Access access) {
    this.freezes = freezes;
    this.clock = clock;
    this.access = access;
  }

  /**
   * Whether the caller sees the window: one for every project is the organization's and everyone's
   * to see; one for a single project only for whoever reaches that project (a grant, or owner and
   * admin).
   */
  private boolean visible(HubPrincipal caller, FreezeWindowRow w) {
    return w.projectId() == null || access.projectRole(caller, w.projectId()).isPresent();
  }

  /**
   * A new window. {@code environment} and {@code project} are names; absent means every one. Times
   * are RFC 3339 with an offset. {@code commandTypes}: the command types the window also holds on
   * the clusters of its environment ({@code ["all"]} for every type); absent or empty for
   * deployments only, and only without a {@code project}.
   */
  record CreateRequest(
      String environment,
      String project,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String startsAt,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String endsAt,
      @Schema(requiredMode = Schema.RequiredMode.REQUIRED) String reason,
      List<String> commandTypes) {}

  /**
   * A window as the API shows it.
   *
   * @param environment null: every environment
   * @param project null: every project
   * @param active the window covers the current time
   * @param commandTypes the command types it also holds ({@code all}: every type); empty:
   *     deployments only
   */
  record WindowView(
      UUID id,
      String environment,
      String project,
      Instant startsAt,
      Instant endsAt,
      String reason,
      boolean active,
      String createdBy,
      Instant createdAt,
      List<String> commandTypes) {}

  record WindowList(List<WindowView> items) {}

  /**
   * Every window, by start; {@code ?active=true} only those covering now, {@code false} the others.
   */
  @GetMapping
  WindowList list(@RequestParam(name = "active", required = false) Boolean active) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    List<FreezeWindowRow> rows =
        active == null ? freezes.list(caller.orgId()) : freezes.list(caller.orgId(), active);
    Instant now = clock.instant();
    return new WindowList(
        rows.stream().filter(w -> visible(caller, w)).map(w -> view(w, now)).toList());
  }

  @GetMapping("/{id}")
  WindowView get(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.RELEASES_READ);
    return freezes
        .find(caller.orgId(), id)
        .filter(w -> visible(caller, w))
        .map(w -> view(w, clock.instant()))
        .orElseThrow(() -> ApiException.notFound("freeze window " + id));
  }

  /** Creates a window; 201 with it. OPA gets the new list at once, or with the next sync. */
  @PostMapping
  @ResponseStatus(HttpStatus.CREATED)
  WindowView create(@RequestBody CreateRequest body) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    if (body == null) {
      throw ApiException.invalid("body", "must be a JSON object");
    }
    Checks checks = new Checks();
    UUID environmentId = null;
    if (body.environment() != null) {
      environmentId = freezes.environmentId(caller.orgId(), body.environment()).orElse(null);
      if (environmentId == null) {
        checks.fail(
            "environment",
            "no environment named '"
                + printable(body.environment())
                + "' exists; omit the field to freeze every environment");
      }
    }
    UUID projectId = null;
    if (body.project() != null) {
      projectId = freezes.projectId(caller.orgId(), body.project()).orElse(null);
      if (projectId == null) {
        checks.fail(
            "project",
            "no project named '"
                + printable(body.project())
                + "' exists; omit the field to freeze every project");
      }
    }
    Instant startsAt = time(checks, "startsAt", body.startsAt());
    Instant endsAt = time(checks, "endsAt", body.endsAt());
    if (startsAt != null && endsAt != null && !endsAt.isAfter(startsAt)) {
      checks.fail("endsAt", "must be after startsAt");
    }
    checks.requiredText("reason", body.reason(), MAX_REASON);
    List<String> commandTypes = commandTypes(checks, body.commandTypes(), body.project() != null);
    checks.throwIfInvalid();

    FreezeWindowRow created =
        freezes.create(
            caller.orgId(),
            caller.actor(),
            new FreezeService.NewWindow(
                environmentId,
                body.environment(),
                projectId,
                body.project(),
                startsAt,
                endsAt,
                body.reason().strip(),
                commandTypes));
    return view(created, clock.instant());
  }

  /** Deletes a window; 204. OPA gets the new list at once, or with the next sync. */
  @DeleteMapping("/{id}")
  @ResponseStatus(HttpStatus.NO_CONTENT)
  void delete(@PathVariable UUID id) {
    HubPrincipal caller = Authz.require(Permission.ORG_WRITE);
    if (freezes.delete(caller.orgId(), caller.actor(), id).isEmpty()) {
      throw ApiException.notFound("freeze window " + id);
    }
  }

  /**
   * The command types a window holds: each a type of {@link CommandTypes}, or {@code all} alone;
   * duplicates collapse. None for a window of one project: a command acts on a cluster, not on a
   * project.
   */
  static List<String> commandTypes(Checks checks, List<String> types, boolean forOneProject) {
    if (types == null || types.isEmpty()) {
      return List.of();
    }
    String known =
        "'"
            + FreezeWindowRow.ALL_COMMANDS
            + "' or a command type: "
            + String.join(", ", CommandTypes.ALL);
    if (types.size() > CommandTypes.ALL.size() + 1) {
      checks.fail(
          "commandTypes", "must have at most " + (CommandTypes.ALL.size() + 1) + " entries");
      return List.of();
    }
    if (forOneProject) {
      checks.fail(
          "commandTypes",
          "a window for one project holds no commands (a command acts on a cluster); omit project"
              + " to hold commands on the clusters of the environment");
      return List.of();
    }
    Set<String> out = new LinkedHashSet<>();
    for (int i = 0; i < types.size(); i++) {
      String t = types.get(i);
      if (t == null || !(t.equals(FreezeWindowRow.ALL_COMMANDS) || CommandTypes.isKnown(t))) {
        checks.fail("commandTypes[" + i + "]", "must be " + known);
      } else {
        out.add(t);
      }
    }
    if (out.contains(FreezeWindowRow.ALL_COMMANDS) && out.size() > 1) {
      checks.fail(
          "commandTypes",
          "'" + FreezeWindowRow.ALL_COMMANDS + "' already holds every type; give it alone");
    }
    return List.copyOf(out);
  }

  private static Instant time(Checks checks, String field, String value) {
    if (value == null || value.isBlank()) {
      checks.fail(field, "is required");
      return null;
    }
    Instant t;
    try {
      t = OffsetDateTime.parse(value).toInstant();
    } catch (DateTimeParseException e) {
      checks.fail(field, "must be an RFC 3339 time with an offset, e.g. 2026-12-18T00:00:00Z");
      return null;
    }
    if (t.isBefore(Checks.EARLIEST) || t.isAfter(Checks.LATEST)) {
      checks.fail(field, "must be a time between the years 1 and 9999");
      return null;
    }
    return t;
  }

  /** A name for an error message: short, and without control characters. */
  private static String printable(String s) {
    String clean =
        s.codePoints()
            .filter(c -> !Character.isISOControl(c))
            .collect(StringBuilder::new, StringBuilder::appendCodePoint, StringBuilder::append)
            .toString();
    return clean.length() > 63 ? clean.substring(0, 63) + "…" : clean;
  }

  private static WindowView view(FreezeWindowRow w, Instant now) {
    return new WindowView(
        w.id(),
        w.environment(),
        w.project(),
        w.startsAt(),
        w.endsAt(),
        w.reason(),
        w.covers(now),
        w.createdBy(),
        w.createdAt(),
        w.commandTypes());
  }
}
