package dev.gitopshq.activities.drift;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import dev.gitopshq.activities.audit.Actor;
import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.agent.v1.DriftDifference;
import dev.gitopshq.agent.v1.DriftObjectResult;
import dev.gitopshq.agent.v1.DriftReport;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Requests drift checks and turns an agent's {@link DriftReport} into findings: a new difference
 * opens a finding ({@code drift.detected}), one seen again updates it ({@code lastSeenAt}), and an
 * open finding whose object the check found in sync is resolved ({@code drift.resolved}). An object
 * the agent could not compare, or did not report, is not compared ({@code unknown}, with the
 * reason): never counted as in sync, it neither opens nor resolves a finding. Every check ends with
 * one {@code drift.checked} summary that says how many objects were not compared.
 */
public final class DriftStore {
  /** How many differences of one object are kept. */
  public static final int MAX_DIFFERENCES = 100;

  /** The longest value text of a difference that is kept. */
  public static final int MAX_VALUE_CHARS = 4096;

  /** The longest reason an object was not compared that is kept. */
  public static final int MAX_REASON_CHARS = 512;

  /** The newest checks of a cluster whose objects not compared are kept (older: their count). */
  public static final int KEPT_UNKNOWN_CHECKS = 20;

  /** How many objects not compared a check's audit entry names. */
  static final int AUDITED_UNKNOWN = 20;

  private static final ObjectMapper JSON = new ObjectMapper();

  private final DriftMapper mapper;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public DriftStore(DriftMapper mapper, AuditLog audit, TransactionTemplate tx, Clock clock) {
    this.mapper = mapper;
    this.audit = audit;
    this.tx = tx;
    this.clock = clock;
  }

  /**
   * Asks for a check of the cluster; the replica holding its agent's stream runs it (the insert
   * notifies channel gitopshq_drift). Joins the caller's transaction when there is one.
   *
   * @param trigger deployment, interval or manual
   */
  public UUID request(UUID orgId, UUID clusterId, String trigger, String requestedBy) {
    return request(orgId, clusterId, trigger, requestedBy, Duration.ZERO);
  }

  /**
   * As {@link #request(UUID, UUID, String, String)}, run no earlier than {@code delay} from now.
   */
  public UUID request(
      UUID orgId, UUID clusterId, String trigger, String requestedBy, Duration delay) {
    UUID id = UUID.randomUUID();
    Instant now = clock.instant();
    tx.executeWithoutResult(
        s -> mapper.insertCheck(id, orgId, clusterId, trigger, requestedBy, now, now.plus(delay)));
    return id;
  }

  /**
   * A deployment wrote {@code deploy/<environment>} of a project: one check for every cluster the
   * environment delivers to, after {@code delay} (the runtime's time to apply it).
   */
  public void deployed(UUID orgId, UUID projectId, UUID environmentId, String by, Duration delay) {
    for (UUID cluster : mapper.clustersOf(orgId, projectId, environmentId)) {
      request(orgId, cluster, "deployment", by, delay);
    }
  }

  /**
   * What one check changed.
   *
   * @param unknown objects not compared (never counted as in sync)
   */
  public record Outcome(int objects, int drifted, int opened, int resolved, int unknown) {}

  /**
   * Records a check that could not run (no desired state read, the agent did not answer).
   *
   * @param error for people; names no secret
   */
  public void fail(UUID orgId, UUID clusterId, String clusterName, UUID checkId, String error) {
    tx.executeWithoutResult(
        s -> {
          mapper.finishCheck(orgId, checkId, "failed", clock.instant(), 0, 0, 0, 0, 0, error);
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("clusterId", clusterId.toString());
          d.put("checkId", checkId.toString());
          trigger(orgId, clusterId, checkId, d);
          d.put("status", "failed");
          d.put("unknown", 0);
          d.put("error", error);
          audit.record(
              orgId, Actor.system("drift"), "drift.checked", "cluster", clusterId.toString(), d);
        });
  }

  /**
   * Records the agent's report of a check of {@code desired}: findings opened, updated and
   * resolved, the check's summary, and the audit entries, in one transaction.
   */
  public Outcome record(
      UUID orgId,
      UUID clusterId,
      String clusterName,
      UUID checkId,
      List<DesiredObject> desired,
      DriftReport report) {
    return tx.execute(s -> recordNow(orgId, clusterId, checkId, desired, report));
  }

  private Outcome recordNow(
      UUID orgId, UUID clusterId, UUID checkId, List<DesiredObject> desired, DriftReport report) {
    Instant now = clock.instant();
    Map<String, DesiredObject> byKey = new HashMap<>();
    desired.forEach(d -> byKey.put(d.key(), d));
    Map<String, DriftFindingRow> open = new HashMap<>();
    for (DriftFindingRow f : mapper.open(orgId, clusterId)) {
      open.put(f.key(), f);
    }
    Map<String, DriftObjectResult> results = new HashMap<>();
    for (DriftObjectResult r : report.getObjectsList()) {
      String key = DesiredObject.key(r.getGroup(), r.getKind(), r.getNamespace(), r.getName());
      // Only answers about objects the hub asked for count: an agent cannot invent findings.
      if (byKey.containsKey(key)) {
        results.put(key, r);
      }
    }
    int drifted = 0;
    int opened = 0;
    int resolved = 0;
    List<DriftUnknownRow> unknown = new ArrayList<>();
    for (DesiredObject d : desired) {
      DriftObjectResult r = results.get(d.key());
      String notCompared = notCompared(r, report);
      if (notCompared != null) {
        // Not compared this time: never in sync, and an open finding stays as it is.
        unknown.add(
            new DriftUnknownRow(
                orgId,
                checkId,
                clusterId,
                d.projectId(),
                d.environment(),
                d.tenant(),
                d.sourcePath(),
                d.group(),
                d.version(),
                d.kind(),
                d.namespace(),
                d.name(),
                notCompared));
        continue;
      }
      DriftFindingRow existing = open.remove(d.key());
      boolean differs =
          r.getState() == DriftObjectResult.State.MISSING
              || (r.getState() == DriftObjectResult.State.DRIFTED && r.getDifferencesCount() > 0);
      if (!differs) {
        if (existing != null) {
          mapper.resolve(orgId, existing.id(), checkId, now);
          resolved++;
          audit.record(
              orgId,
              Actor.system("drift"),
              "drift.resolved",
              "drift_finding",
              existing.id().toString(),
              details(clusterId, checkId, existing.kind(), d, existing.severity()));
        }
        continue;
      }
      drifted++;
      String severity = severity(r);
      String state = r.getState() == DriftObjectResult.State.MISSING ? "missing" : "drifted";
      DriftFindingRow row =
          new DriftFindingRow(
              existing == null ? UUID.randomUUID() : existing.id(),
              orgId,
              clusterId,
              d.projectId(),
              d.environment(),
              d.tenant(),
              d.sourcePath(),
              d.group(),
              d.version(),
              d.kind(),
              d.namespace(),
              d.name(),
              severity,
              state,
              differences(r),
              d.manifest(),
              bounded(r.getFieldManager(), 128),
              bounded(r.getArgoApplication(), 512),
              bounded(r.getMethod(), 32),
              existing == null ? now : existing.firstDetectedAt(),
              now,
              null,
              checkId,
              null);
      if (existing == null) {
        mapper.insertFinding(row);
        opened++;
        Map<String, Object> det = details(clusterId, checkId, d.kind(), d, severity);
        det.put("state", state);
        det.put("paths", r.getDifferencesList().stream().map(DriftDifference::getPath).toList());
        audit.record(
            orgId,
            Actor.system("drift"),
            "drift.detected",
            "drift_finding",
            row.id().toString(),
            det);
      } else {
        mapper.updateFinding(row);
      }
    }
    // Open findings of objects no deployment delivers any more: nothing to drift from.
    for (DriftFindingRow gone : open.values()) {
      if (!byKey.containsKey(gone.key())) {
        mapper.resolve(orgId, gone.id(), checkId, now);
        resolved++;
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("clusterId", clusterId.toString());
        d.put("checkId", checkId.toString());
        d.put("object", gone.kind() + " " + gone.namespace() + "/" + gone.name());
        d.put("why", "no longer delivered to the cluster");
        audit.record(
            orgId,
            Actor.system("drift"),
            "drift.resolved",
            "drift_finding",
            gone.id().toString(),
            d);
      }
    }
    unknown.forEach(mapper::insertUnknown);
    String status = report.getError().isEmpty() ? "completed" : "failed";
    String error = report.getError().isEmpty() ? null : reason(report.getError());
    mapper.finishCheck(
        orgId,
        checkId,
        status,
        now,
        desired.size(),
        drifted,
        opened,
        resolved,
        unknown.size(),
        error);
    mapper.pruneUnknowns(orgId, clusterId, KEPT_UNKNOWN_CHECKS);
    Map<String, Object> summary = new LinkedHashMap<>();
    summary.put("clusterId", clusterId.toString());
    summary.put("checkId", checkId.toString());
    trigger(orgId, clusterId, checkId, summary);
    summary.put("status", status);
    summary.put("objects", desired.size());
    summary.put("drifted", drifted);
    summary.put("opened", opened);
    summary.put("resolved", resolved);
    summary.put("unknown", unknown.size());
    if (!unknown.isEmpty()) {
      summary.put(
          "notCompared",
          unknown.stream()
              .limit(AUDITED_UNKNOWN)
              .map(
                  u ->
                      u.kind()
                          + " "
                          + u.namespace()
                          + "/"
                          + u.name()
                          + ": "
                          + bounded(u.reason(), 200))
              .toList());
    }
    if (error != null) {
      summary.put("error", error);
    }
    mapper.findCheck(orgId, clusterId, checkId).ifPresent(c -> summary.put("summary", c.summary()));
    audit.record(
        orgId, Actor.system("drift"), "drift.checked", "cluster", clusterId.toString(), summary);
    return new Outcome(desired.size(), drifted, opened, resolved, unknown.size());
  }

  /**
   * Why an object was not compared, or null when it was: the agent's error for a comparison that
   * failed, the whole report's error or "did not report" for an object missing from the report.
   */
  private static String notCompared(DriftObjectResult r, DriftReport report) {
    if (r == null) {
      return report.getError().isEmpty()
          ? "the agent did not report this object"
          : reason(report.getError());
    }
    return switch (r.getState()) {
      case IN_SYNC, DRIFTED, MISSING -> null;
      case FAILED ->
          r.getError().isBlank()
              ? "the agent could not compare it and gave no reason"
              : reason(r.getError());
      default -> "the agent reported no comparison state for this object";
    };
  }

  /**
   * An agent's text for people: control characters (line breaks, terminal escapes) become visible
   * escapes, and it is cut at {@value #MAX_REASON_CHARS} characters.
   */
  static String reason(String s) {
    StringBuilder b = new StringBuilder();
    s.codePoints()
        .limit(MAX_REASON_CHARS)
        .forEach(
            c -> {
              if (Character.isISOControl(c) || c == 0x2028 || c == 0x2029) {
                b.append(String.format("\\u%04x", c));
              } else {
                b.appendCodePoint(c);
              }
            });
    return s.codePointCount(0, s.length()) > MAX_REASON_CHARS ? b + "…" : b.toString();
  }

  /** Who or what asked for the check, for its audit entry. */
  private void trigger(UUID orgId, UUID clusterId, UUID checkId, Map<String, Object> d) {
    mapper
        .findCheck(orgId, clusterId, checkId)
        .ifPresent(
            c -> {
              d.put("trigger", c.trigger());
              d.put("requestedBy", c.requestedBy());
            });
  }

  private static Map<String, Object> details(
      UUID clusterId, UUID checkId, String kind, DesiredObject d, String severity) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("clusterId", clusterId.toString());
    m.put("checkId", checkId.toString());
    m.put("object", kind + " " + d.namespace() + "/" + d.name());
    m.put("project", d.project());
    m.put("environment", d.environment());
    m.put("tenant", d.tenant());
    m.put("severity", severity);
    return m;
  }

  /** functional when any difference is functional (a missing object always is). */
  static String severity(DriftObjectResult r) {
    if (r.getState() == DriftObjectResult.State.MISSING) {
      return "functional";
    }
    return r.getDifferencesList().stream().anyMatch(d -> !"cosmetic".equals(d.getSeverity()))
        ? "functional"
        : "cosmetic";
  }

  static String differences(DriftObjectResult r) {
    ArrayNode a = JSON.createArrayNode();
    if (r.getState() == DriftObjectResult.State.MISSING) {
      ObjectNode o = a.addObject();
      o.put("path", "");
      o.put("desired", "(the object)");
      o.put("live", "");
      o.put("severity", "functional");
      return a.toString();
    }
    for (DriftDifference d : r.getDifferencesList()) {
      if (a.size() >= MAX_DIFFERENCES) {
        break;
      }
      ObjectNode o = a.addObject();
      o.put("path", bounded(d.getPath(), 1024));
      o.put("desired", bounded(d.getDesired(), MAX_VALUE_CHARS));
      o.put("live", bounded(d.getLive(), MAX_VALUE_CHARS));
      o.put("severity", "cosmetic".equals(d.getSeverity()) ? "cosmetic" : "functional");
    }
    return a.toString();
  }

  private static String bounded(String s, int max) {
    if (s == null) {
      return "";
    }
    return s.length() <= max ? s : s.substring(0, max) + "…";
  }
}
