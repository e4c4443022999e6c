package dev.gitopshq.hub.audit;

import dev.gitopshq.activities.audit.WorkflowRefMapper;
import dev.gitopshq.hub.web.ApiException;
import io.grpc.Status;
import io.grpc.StatusRuntimeException;
import io.temporal.client.WorkflowClient;
import io.temporal.client.WorkflowNotFoundException;
import io.temporal.common.WorkflowExecutionHistory;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.springframework.stereotype.Service;
import org.springframework.transaction.annotation.Transactional;

/**
 * The Temporal histories of an organization's workflows. A workflow is the organization's when the
 * row its id names (a command, a deployment, a generation, an approval, a token...) is; anything
 * else, including ids Temporal knows but no row of the organization names, is not found.
 */
@Service
public class WorkflowHistories {
  private static final String UUID_RE =
      "[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}";
  private static final Pattern PLAIN = Pattern.compile("(" + UUID_RE + ")");
  private static final Pattern PREFIXED =
      Pattern.compile(
          "(deployment|rollback|approval|registration|token-rotation)-(" + UUID_RE + ")");
  private static final Pattern DELIVERY =
      Pattern.compile("delivery-(" + UUID_RE + ")-r(\\d{1,18})");
  private static final Pattern PER_CLUSTER =
      Pattern.compile("(?:agent-watch|token-rotation-scheduled)-(" + UUID_RE + ")-[0-9A-Za-z:.-]+");

  /** One workflow per cluster at a time, named by the cluster alone. */
  private static final Pattern CLUSTER = Pattern.compile("credential-sync-(" + UUID_RE + ")");

  /** Longer ids name no workflow of the hub; they are refused before any query. */
  public static final int MAX_ID_LENGTH = 200;

  private final WorkflowRefMapper refs;
  private final WorkflowClient temporal;

  public WorkflowHistories(WorkflowRefMapper refs, WorkflowClient temporal) {
    this.refs = refs;
    this.temporal = temporal;
  }

  /** Whether the workflow id names a row of the organization. */
  @Transactional(readOnly = true)
  public boolean owns(UUID orgId, String workflowId) {
    if (workflowId == null || workflowId.length() > MAX_ID_LENGTH) {
      return false;
    }
    Matcher m;
    if ((m = PLAIN.matcher(workflowId)).matches()) {
      return refs.command(orgId, UUID.fromString(m.group(1))) > 0;
    }
    if ((m = DELIVERY.matcher(workflowId)).matches()) {
      return refs.generation(orgId, UUID.fromString(m.group(1)), Long.parseLong(m.group(2))) > 0;
    }
    if ((m = PER_CLUSTER.matcher(workflowId)).matches()
        || (m = CLUSTER.matcher(workflowId)).matches()) {
      return refs.cluster(orgId, UUID.fromString(m.group(1))) > 0;
    }
    if ((m = PREFIXED.matcher(workflowId)).matches()) {
      UUID id = UUID.fromString(m.group(2));
      return switch (m.group(1)) {
        case "deployment" -> refs.deployment(orgId, id) > 0;
        case "rollback" -> refs.rollback(orgId, id) > 0;
        case "approval" -> refs.approval(orgId, workflowId.substring("approval-".length())) > 0;
        case "registration" -> refs.registration(orgId, id) > 0;
        default -> refs.rotation(orgId, id) > 0;
      };
    }
    return false;
  }

  /**
   * The organization's workflow's history.
   *
   * @throws ApiException 404 when the workflow is not the organization's or Temporal no longer has
   *     it
   */
  public WorkflowExecutionHistory history(UUID orgId, String workflowId) {
    if (!owns(orgId, workflowId)) {
      throw ApiException.notFound("workflow");
    }
    return fetch(workflowId);
  }

  /**
   * The history of a workflow the caller already knows is the organization's (its id comes from the
   * organization's own rows); 404 when Temporal lacks it.
   */
  public WorkflowExecutionHistory fetchKnown(String workflowId) {
    return fetch(workflowId);
  }

  WorkflowExecutionHistory fetch(String workflowId) {
    try {
      return temporal.fetchHistory(workflowId);
    } catch (WorkflowNotFoundException e) {
      throw ApiException.notFound("workflow history");
    } catch (StatusRuntimeException e) {
      if (e.getStatus().getCode() == Status.Code.NOT_FOUND) {
        throw ApiException.notFound("workflow history");
      }
      throw e;
    }
  }

  /** Temporal's JSON for a history, as {@code temporal workflow show --output json} writes it. */
  public static String json(WorkflowExecutionHistory history) {
    return history.toJson(true);
  }
}
