package dev.gitopshq.hub.audit;

import dev.gitopshq.activities.audit.AuditLog;
import dev.gitopshq.activities.audit.WorkflowRefMapper;
import dev.gitopshq.hub.audit.ReplayRequests.Outcome;
import dev.gitopshq.hub.audit.ReplayRequests.Replay;
import dev.gitopshq.hub.audit.ReplayRequests.Report;
import dev.gitopshq.hub.security.HubPrincipal;
import dev.gitopshq.hub.web.ApiException;
import dev.gitopshq.hub.web.Checks;
import dev.gitopshq.workflows.Workflows;
import io.temporal.common.WorkflowExecutionHistory;
import io.temporal.testing.WorkflowReplayer;
import io.temporal.worker.NonDeterministicException;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.stereotype.Service;
import org.springframework.transaction.PlatformTransactionManager;
import org.springframework.transaction.support.TransactionTemplate;

/**
 * Replays an organization's recorded workflow histories against the workflow code this hub runs
 * ({@link Workflows#IMPLEMENTATIONS}, the list its worker registers) and says, per workflow,
 * whether today's code makes the same decisions. Bounded: at most {@value #MAX_WORKFLOWS} workflows
 * and {@link #DEADLINE} per request; every request is audited ({@code audit.replay}).
 */
@Service
public class ReplayService {
  public static final int MAX_WORKFLOWS = 50;
  public static final Duration DEADLINE = Duration.ofSeconds(120);
  private static final Duration MAX_RANGE = Duration.ofDays(366);

  /** Temporal names the event in its message, e.g. "... eventId=5 ..." or "Event 5 of type". */
  private static final Pattern EVENT_ID =
      Pattern.compile("(?i)(?:event ?id[=: ]+|event #?|eventId\\W+)(\\d+)");

  private final WorkflowHistories histories;
  private final WorkflowRefMapper refs;
  private final AuditLog audit;
  private final TransactionTemplate tx;
  private final Clock clock;

  public ReplayService(
      WorkflowHistories histories,
      WorkflowRefMapper refs,
      AuditLog audit,
      PlatformTransactionManager transactions,
      Clock clock) {
    this.histories = histories;
    this.refs = refs;
    this.audit = audit;
    this.tx = new TransactionTemplate(transactions);
    this.clock = clock;
  }

  /** Replays against the hub's own workflow code. */
  public Report replay(HubPrincipal caller, Replay req) {
    return replay(caller, req, Workflows.IMPLEMENTATIONS);
  }

  /**
   * Replays against the given workflow implementations (the hub's own in production; a test passes
   * a deliberately different one to see a divergence reported).
   */
  public Report replay(HubPrincipal caller, Replay req, List<Class<?>> implementations) {
    List<String> ids = select(caller, req);
    Instant deadline = clock.instant().plus(DEADLINE);
    List<Outcome> results = new ArrayList<>();
    for (String id : ids) {
      if (clock.instant().isAfter(deadline)) {
        results.add(new Outcome(id, null, "skipped", null, "the request's deadline passed"));
        continue;
      }
      results.add(replayOne(caller, id, implementations));
    }
    int deterministic =
        (int) results.stream().filter(o -> o.outcome().equals("deterministic")).count();
    int diverged = (int) results.stream().filter(o -> o.outcome().equals("diverged")).count();
    Report report = new Report(ids.size(), deterministic, diverged, List.copyOf(results));
    tx.executeWithoutResult(
        t -> {
          Map<String, Object> d = new LinkedHashMap<>();
          d.put("deterministic", deterministic);
          d.put("diverged", diverged);
          d.put(
              "workflows",
              results.stream()
                  .map(
                      o -> {
                        Map<String, Object> w = new LinkedHashMap<>();
                        w.put("workflowId", o.workflowId());
                        w.put("outcome", o.outcome());
                        if (o.eventId() != null) {
                          w.put("eventId", o.eventId());
                        }
                        return w;
                      })
                  .toList());
          if (req.type() != null) {
            d.put("type", req.type());
            d.put("from", req.from().toString());
            d.put("to", req.to().toString());
          }
          audit.record(caller.orgId(), caller.actor(), "audit.replay", "workflows", "replay", d);
        });
    return report;
  }

  private Outcome replayOne(HubPrincipal caller, String id, List<Class<?>> implementations) {
    if (!histories.owns(caller.orgId(), id)) {
      return new Outcome(id, null, "not_found", null, "no workflow of this organization");
    }
    WorkflowExecutionHistory history;
    try {
      history = histories.fetch(id);
    } catch (ApiException e) {
      return new Outcome(id, null, "not_found", null, "Temporal has no history for it");
    }
    String type =
        history.getHistory().getEventsCount() == 0
            ? null
            : history
                .getHistory()
                .getEvents(0)
                .getWorkflowExecutionStartedEventAttributes()
                .getWorkflowType()
                .getName();
    try {
      Class<?>[] all = implementations.toArray(Class<?>[]::new);
      WorkflowReplayer.replayWorkflowExecution(
          history, all[0], Arrays.copyOfRange(all, 1, all.length));
      return new Outcome(id, type, "deterministic", null, null);
    } catch (Exception e) {
      return failure(id, type, e);
    }
  }

  /** Maps a replay failure: non-determinism is "diverged" with the event and Temporal's reason. */
  static Outcome failure(String id, String type, Throwable e) {
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof NonDeterministicException
          || (t.getMessage() != null && t.getMessage().contains("TMPRL1100"))) {
        String reason = t.getMessage() == null ? t.getClass().getSimpleName() : t.getMessage();
        Matcher m = EVENT_ID.matcher(reason);
        Long eventId = m.find() ? Long.parseLong(m.group(1)) : null;
        return new Outcome(id, type, "diverged", eventId, reason);
      }
    }
    String reason = e.getMessage() == null ? e.getClass().getSimpleName() : e.getMessage();
    return new Outcome(id, type, "failed", null, reason);
  }

  /** The workflow ids a request names, bounded, without duplicates. */
  private List<String> select(HubPrincipal caller, Replay req) {
    if (req == null) {
      throw ApiException.invalid("workflowIds", "give workflowIds, or type with from and to");
    }
    boolean byIds = req.workflowIds() != null;
    boolean byType = req.type() != null || req.from() != null || req.to() != null;
    if (byIds == byType) {
      throw ApiException.invalid("workflowIds", "give either workflowIds or type with from and to");
    }
    if (byIds) {
      if (req.workflowIds().isEmpty()) {
        throw ApiException.invalid("workflowIds", "must name at least one workflow");
      }
      if (req.workflowIds().size() > MAX_WORKFLOWS) {
        throw ApiException.invalid(
            "workflowIds", "at most " + MAX_WORKFLOWS + " workflows per request");
      }
      for (String id : req.workflowIds()) {
        if (id == null || id.isBlank() || id.length() > WorkflowHistories.MAX_ID_LENGTH) {
          throw ApiException.invalid(
              "workflowIds",
              "each must be a workflow id of at most "
                  + WorkflowHistories.MAX_ID_LENGTH
                  + " characters");
        }
      }
      return List.copyOf(new LinkedHashSet<>(req.workflowIds()));
    }
    if (req.type() == null || !WorkflowRefMapper.TYPES.contains(req.type())) {
      throw ApiException.invalid(
          "type", "must be one of " + String.join(", ", WorkflowRefMapper.TYPES));
    }
    if (req.from() == null) {
      throw ApiException.invalid("from", "is required with type");
    }
    if (req.to() == null) {
      throw ApiException.invalid("to", "is required with type");
    }
    Checks.time("from", req.from());
    Checks.time("to", req.to());
    if (!req.to().isAfter(req.from())) {
      throw ApiException.invalid("to", "must be after from");
    }
    if (Duration.between(req.from(), req.to()).compareTo(MAX_RANGE) > 0) {
      throw ApiException.invalid("to", "the range may span at most 366 days");
    }
    List<String> ids =
        refs.started(caller.orgId(), req.type(), req.from(), req.to(), MAX_WORKFLOWS + 1);
    if (ids.size() > MAX_WORKFLOWS) {
      throw ApiException.invalid(
          "to",
          "the range holds more than "
              + MAX_WORKFLOWS
              + " "
              + req.type()
              + " workflows; narrow it");
    }
    return ids;
  }
}
