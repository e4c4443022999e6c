package dev.gitopshq.hub.drift;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.activities.command.CommandRow;
import dev.gitopshq.activities.drift.DriftCheckRow;
import dev.gitopshq.activities.drift.DriftFindingRow;
import dev.gitopshq.activities.drift.DriftQuery;
import dev.gitopshq.activities.identity.Permission;
import dev.gitopshq.hub.command.CommandRequests;
import dev.gitopshq.hub.command.CommandService;
import dev.gitopshq.hub.security.Authz;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.hub.web.TimeCursor;
import java.io.IOException;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Set;
import java.util.UUID;
import org.springframework.http.HttpStatus;
import org.springframework.http.ResponseEntity;
import org.springframework.web.bind.annotation.GetMapping;
import org.springframework.web.bind.annotation.PathVariable;
import org.springframework.web.bind.annotation.PostMapping;
import org.springframework.web.bind.annotation.RequestBody;
import org.springframework.web.bind.annotation.RequestHeader;
import org.springframework.web.bind.annotation.RequestParam;
import org.springframework.web.bind.annotation.ResponseStatus;
import org.springframework.web.bind.annotation.RestController;

/**
 * A cluster's drift findings (list, detail), drift checks (ask for one, follow it) and the governed
 * resolve-drift command. Reading needs clusters:read, asking for a check too (it changes nothing in
 * the cluster), resolving commands:create.
 */
@RestController
public class DriftController {
  private static final int MAX_LIMIT = 200;
  private static final Set<String> SEVERITIES = Set.of("functional", "cosmetic");
  private static final Set<String> STATES = Set.of("open", "resolved");
  private static final ObjectMapper JSON = new ObjectMapper();

  private final DriftService drift;

  public DriftController(DriftService drift) {
    this.drift = drift;
  }

  record ObjectRef(String group, String version, String kind, String namespace, String name) {}

  record Difference(String path, String desired, String live, String severity) {}

  record Source(String projectId, String environment, String tenant, String branch, String path) {}

  /**
   * A finding in a list.
   *
   * @param notCompared for an open finding, why the cluster's newest finished check did not compare
   *     its object (the finding stays open as the last comparison left it); else null
   */
  record FindingSummary(
      String id,
      ObjectRef object,
      String severity,
      String state,
      boolean open,
      int differences,
      String argoApplication,
      Instant firstDetectedAt,
      Instant lastSeenAt,
      Instant resolvedAt,
      long durationSeconds,
      String notCompared) {}

  /** An object a check did not compare: its sync status is unknown, never in sync. */
  record NotCompared(ObjectRef object, Source source, String reason) {}

  record ResolveCommand(String id, String status, String statusDetail, Instant createdAt) {}

  /** A finding with its field-level differences. */
  record FindingDetail(
      String id,
      String clusterId,
      ObjectRef object,
      Source source,
      String severity,
      String state,
      boolean open,
      List<Difference> differences,
      String fieldManager,
      String argoApplication,
      String method,
      Instant firstDetectedAt,
      Instant lastSeenAt,
      Instant resolvedAt,
      long durationSeconds,
      String lastCheckId,
      String resolvedByCheck,
      List<ResolveCommand> resolveCommands,
      String notCompared) {}

  /**
   * @param latestCheck the cluster's newest finished check, with the objects it did not compare
   *     (whatever the filters), or null before the first one
   */
  record Page(List<FindingSummary> items, String nextCursor, Check latestCheck) {}

  record Check(
      String id,
      String clusterId,
      String trigger,
      String requestedBy,
      String status,
      Instant requestedAt,
      Instant startedAt,
      Instant finishedAt,
      int objects,
      int drifted,
      int opened,
      int resolved,
      int unknown,
      String summary,
      String error,
      List<NotCompared> notCompared) {}

  record ResolveBody(String reason, CommandRequests.BreakGlass breakGlass) {}

  record Accepted(String id, String status) {}

  private static final String UUID_PATTERN =
      "[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}";

  @GetMapping("/api/v2/clusters/{clusterId}/drift")
  Page list(
      @PathVariable UUID clusterId,
      @RequestParam(required = false) String severity,
      @RequestParam(required = false) String namespace,
      @RequestParam(required = false) String state,
      @RequestParam(required = false) String cursor,
      @RequestParam(defaultValue = "50") int limit) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    Checks c = new Checks();
    if (severity != null && !SEVERITIES.contains(severity)) {
      c.fail("severity", "must be functional or cosmetic");
    }
    if (state != null && !STATES.contains(state)) {
      c.fail("state", "must be open or resolved");
    }
    if (namespace != null) {
      c.dnsLabel("namespace", namespace);
    }
    if (limit < 1 || limit > MAX_LIMIT) {
      c.fail("limit", "must be between 1 and " + MAX_LIMIT);
    }
    Instant afterAt = null;
    UUID afterId = null;
    if (cursor != null) {
      try {
        TimeCursor after = TimeCursor.parse(cursor);
        afterAt = after.at();
        afterId = after.id();
      } catch (IllegalArgumentException e) {
        c.fail("cursor", e.getMessage());
      }
    }
    c.throwIfInvalid();
    List<DriftFindingRow> rows =
        drift.list(
            caller.orgId(),
            clusterId,
            new DriftQuery(severity, namespace, state, afterAt, afterId, limit));
    String next = null;
    if (rows.size() == limit) {
      DriftFindingRow last = rows.getLast();
      next = new TimeCursor(last.firstDetectedAt(), last.id()).encode();
    }
    Optional<DriftService.CheckResult> latest = drift.latestResult(caller.orgId(), clusterId);
    Map<String, String> reasons = reasons(latest);
    return new Page(
        rows.stream().map(f -> summary(f, f.open() ? reasons.get(f.key()) : null)).toList(),
        next,
        latest.map(DriftController::check).orElse(null));
  }

  // A finding id is a UUID: "checks" is never one, so GET …/drift/checks is a 405 (only POST
  // is there), not a finding id that has the wrong format.
  @GetMapping("/api/v2/clusters/{clusterId}/drift/{findingId:" + UUID_PATTERN + "}")
  FindingDetail get(@PathVariable UUID clusterId, @PathVariable UUID findingId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    DriftFindingRow f = drift.get(caller.orgId(), clusterId, findingId);
    List<ResolveCommand> cmds = new ArrayList<>();
    if (caller.can(Permission.COMMANDS_READ)) {
      for (CommandRow r : drift.resolveCommands(caller.orgId(), clusterId, findingId)) {
        cmds.add(
            new ResolveCommand(r.id().toString(), r.status(), r.statusDetail(), r.createdAt()));
      }
    }
    return new FindingDetail(
        f.id().toString(),
        f.clusterId().toString(),
        ref(f),
        new Source(
            f.projectId().toString(),
            f.environment(),
            f.tenant(),
            "deploy/" + f.environment(),
            f.sourcePath()),
        f.severity(),
        f.state(),
        f.open(),
        differences(f.differences()),
        f.fieldManager(),
        f.argoApplication(),
        f.method(),
        f.firstDetectedAt(),
        f.lastSeenAt(),
        f.resolvedAt(),
        duration(f),
        f.lastCheckId() == null ? null : f.lastCheckId().toString(),
        f.resolvedByCheck() == null ? null : f.resolvedByCheck().toString(),
        cmds,
        f.open() ? reasons(drift.latestResult(caller.orgId(), clusterId)).get(f.key()) : null);
  }

  @PostMapping("/api/v2/clusters/{clusterId}/drift/checks")
  @ResponseStatus(HttpStatus.ACCEPTED)
  Check check(@PathVariable UUID clusterId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return check(new DriftService.CheckResult(drift.check(caller, clusterId), List.of()));
  }

  @GetMapping("/api/v2/clusters/{clusterId}/drift/checks/{checkId}")
  Check getCheck(@PathVariable UUID clusterId, @PathVariable UUID checkId) {
    HubPrincipal caller = Authz.require(Permission.CLUSTERS_READ);
    return check(drift.checkResult(caller.orgId(), clusterId, checkId));
  }

  @PostMapping("/api/v2/clusters/{clusterId}/drift/{findingId:" + UUID_PATTERN + "}/resolve")
  ResponseEntity<Accepted> resolve(
      @PathVariable UUID clusterId,
      @PathVariable UUID findingId,
      @RequestBody(required = false) ResolveBody body,
      @RequestHeader(name = "Idempotency-Key", required = false) String idempotencyKey) {
    HubPrincipal caller = Authz.require(Permission.COMMANDS_CREATE);
    Checks c = new Checks();
    String reason = body == null ? null : body.reason();
    c.text("reason", reason, 1024);
    CommandRequests.BreakGlass bg = body == null ? null : body.breakGlass();
    if (bg != null) {
      String j = bg.justification() == null ? "" : bg.justification().trim();
      if (j.length() < 20) {
        c.fail("breakGlass.justification", "must explain the emergency in at least 20 characters");
      } else {
        c.text("breakGlass.justification", j, 2048);
      }
    }
    if (idempotencyKey != null && (idempotencyKey.isBlank() || idempotencyKey.length() > 128)) {
      c.fail("Idempotency-Key", "must be 1 to 128 characters");
    }
    c.throwIfInvalid();
    CommandService.Created created =
        drift.resolve(caller, clusterId, findingId, reason, bg, idempotencyKey);
    return ResponseEntity.status(created.existed() ? HttpStatus.OK : HttpStatus.ACCEPTED)
        .body(new Accepted(created.command().id().toString(), created.command().status()));
  }

  static Check check(DriftService.CheckResult result) {
    DriftCheckRow r = result.check();
    return new Check(
        r.id().toString(),
        r.clusterId().toString(),
        r.trigger(),
        r.requestedBy(),
        r.status(),
        r.requestedAt(),
        r.startedAt(),
        r.finishedAt(),
        r.objects(),
        r.drifted(),
        r.opened(),
        r.resolved(),
        r.unknown(),
        r.summary(),
        r.error(),
        result.notCompared().stream()
            .map(
                u ->
                    new NotCompared(
                        new ObjectRef(
                            u.apiGroup(), u.apiVersion(), u.kind(), u.namespace(), u.name()),
                        new Source(
                            u.projectId().toString(),
                            u.environment(),
                            u.tenant(),
                            "deploy/" + u.environment(),
                            u.sourcePath()),
                        u.reason()))
            .toList());
  }

  /** Why the newest finished check did not compare an object, by the object's key. */
  private static Map<String, String> reasons(Optional<DriftService.CheckResult> latest) {
    Map<String, String> out = new HashMap<>();
    latest.ifPresent(l -> l.notCompared().forEach(u -> out.put(u.key(), u.reason())));
    return out;
  }

  private static ObjectRef ref(DriftFindingRow f) {
    return new ObjectRef(f.apiGroup(), f.apiVersion(), f.kind(), f.namespace(), f.name());
  }

  private static FindingSummary summary(DriftFindingRow f, String notCompared) {
    return new FindingSummary(
        f.id().toString(),
        ref(f),
        f.severity(),
        f.state(),
        f.open(),
        differences(f.differences()).size(),
        f.argoApplication(),
        f.firstDetectedAt(),
        f.lastSeenAt(),
        f.resolvedAt(),
        duration(f),
        notCompared);
  }

  /** How long the drift lasted (so far, while open). */
  private static long duration(DriftFindingRow f) {
    Instant end = f.resolvedAt() == null ? f.lastSeenAt() : f.resolvedAt();
    return Math.max(0, Duration.between(f.firstDetectedAt(), end).toSeconds());
  }

  static List<Difference> differences(String json) {
    List<Difference> out = new ArrayList<>();
    try {
      for (JsonNode d : JSON.readTree(json == null ? "[]" : json)) {
        out.add(
            new Difference(
                d.path("path").asText(),
                d.path("desired").asText(),
                d.path("live").asText(),
                d.path("severity").asText()));
      }
    } catch (IOException e) {
      throw new IllegalStateException("stored drift differences are not JSON", e);
    }
    return out;
  }
}
