package dev.gitopshq.agent.model;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.ObjectMetaBuilder;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentBuilder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * The desired state for each command type. Every plan stamps the object with the command id ({@link
 * #LAST_COMMAND}), and a plan for an object that already carries the stamp is {@link
 * Plan#alreadyApplied}: a command that arrives twice (a reconnect, a hub restart) changes nothing
 * the second time. The restart stamp on the pod template is derived from the command id alone, so
 * even a retried restart cannot roll the pods twice.
 */
public final class CommandPlans {
  /** Annotation on the object: the id of the last command applied to it. */
  public static final String LAST_COMMAND = "gitopshq.dev/last-command";

  /** Pod-template annotation whose change triggers a rolling restart. */
  public static final String RESTART = "gitopshq.dev/restart";

  /** Argo CD's refresh annotation; "hard" also invalidates the manifest cache. */
  public static final String ARGOCD_REFRESH = "argocd.argoproj.io/refresh";

  private CommandPlans() {}

  /**
   * What to do.
   *
   * @param desired the object to write, or null when nothing must change
   * @param output what was (or will be) done, for people
   * @param error when the command cannot be applied
   */
  public record Plan<T>(T desired, boolean alreadyApplied, String output, String error) {
    static <T> Plan<T> apply(T desired, String output) {
      return new Plan<>(desired, false, output, null);
    }

    static <T> Plan<T> done(String output) {
      return new Plan<>(null, true, output, null);
    }

    static <T> Plan<T> fail(String error) {
      return new Plan<>(null, false, null, error);
    }
  }

  public static Plan<Deployment> scale(Deployment current, String commandId, int replicas) {
    String ref = "deployment.apps/" + current.getMetadata().getName();
    if (stamped(current.getMetadata().getAnnotations(), commandId)) {
      return Plan.done(ref + " already scaled by this command");
    }
    Integer before = current.getSpec() == null ? null : current.getSpec().getReplicas();
    Deployment desired =
        new DeploymentBuilder(current)
            .editMetadata()
            .addToAnnotations(LAST_COMMAND, commandId)
            .endMetadata()
            .editSpec()
            .withReplicas(replicas)
            .endSpec()
            .build();
    return Plan.apply(
        desired, ref + " scaled from " + (before == null ? 1 : before) + " to " + replicas);
  }

  public static Plan<Deployment> restart(Deployment current, String commandId) {
    String ref = "deployment.apps/" + current.getMetadata().getName();
    Map<String, String> template =
        current.getSpec() == null
                || current.getSpec().getTemplate() == null
                || current.getSpec().getTemplate().getMetadata() == null
            ? null
            : current.getSpec().getTemplate().getMetadata().getAnnotations();
    if (template != null && commandId.equals(template.get(RESTART))) {
      return Plan.done(ref + " already restarted by this command");
    }
    Deployment desired =
        new DeploymentBuilder(current)
            .editMetadata()
            .addToAnnotations(LAST_COMMAND, commandId)
            .endMetadata()
            .editSpec()
            .editOrNewTemplate()
            .editOrNewMetadata()
            .addToAnnotations(RESTART, commandId)
            .endMetadata()
            .endTemplate()
            .endSpec()
            .build();
    return Plan.apply(desired, ref + " restarted (pod template " + RESTART + "=" + commandId + ")");
  }

  /**
   * Sync: an Argo CD operation to sync (to {@code revision}, or the source's target) plus a hard
   * refresh.
   */
  public static Plan<GenericKubernetesResource> sync(
      GenericKubernetesResource app, String commandId, String requestedBy, String revision) {
    String ref =
        "application " + app.getMetadata().getNamespace() + "/" + app.getMetadata().getName();
    if (stamped(app.getMetadata().getAnnotations(), commandId)) {
      return Plan.done(ref + " sync already requested by this command");
    }
    String rev = revision != null ? revision : targetRevision(app);
    GenericKubernetesResource desired = withOperation(app, commandId, requestedBy, rev, null);
    return Plan.apply(
        desired, ref + " sync to " + (rev == null ? "HEAD" : rev) + " requested (hard refresh)");
  }

  /**
   * Hard refresh: Argo CD re-reads the source and recomputes the diff, without syncing. The
   * annotation is Argo CD's own; it removes it once refreshed.
   */
  public static Plan<GenericKubernetesResource> refresh(
      GenericKubernetesResource app, String commandId) {
    String ref =
        "application " + app.getMetadata().getNamespace() + "/" + app.getMetadata().getName();
    if (stamped(app.getMetadata().getAnnotations(), commandId)) {
      return Plan.done(ref + " hard refresh already requested by this command");
    }
    return Plan.apply(hardRefreshed(app, commandId), ref + " hard refresh requested");
  }

  /**
   * Rollback: sync to a revision from the Application's {@code status.history}, chosen by history
   * id or by revision.
   */
  @SuppressWarnings("unchecked")
  public static Plan<GenericKubernetesResource> rollback(
      GenericKubernetesResource app,
      String commandId,
      String requestedBy,
      String historyId,
      String revision) {
    String ref =
        "application " + app.getMetadata().getNamespace() + "/" + app.getMetadata().getName();
    if (stamped(app.getMetadata().getAnnotations(), commandId)) {
      return Plan.done(ref + " rollback already requested by this command");
    }
    Object status = app.getAdditionalProperties().get("status");
    List<Map<String, Object>> history =
        status instanceof Map<?, ?> s && s.get("history") instanceof List<?> h
            ? (List<Map<String, Object>>) h
            : List.of();
    Map<String, Object> entry = null;
    for (Map<String, Object> e : history) {
      if ((historyId != null && historyId.equals(String.valueOf(e.get("id"))))
          || (revision != null && revision.equals(e.get("revision")))) {
        entry = e;
      }
    }
    if (entry == null) {
      List<String> known = new ArrayList<>();
      for (Map<String, Object> e : history) {
        known.add(e.get("id") + "=" + e.get("revision"));
      }
      return Plan.fail(
          ref
              + " has no "
              + (historyId != null ? "history id " + historyId : "revision " + revision)
              + " in status.history"
              + (known.isEmpty() ? " (the history is empty)" : " (it has " + known + ")"));
    }
    String rev = String.valueOf(entry.get("revision"));
    Object source = entry.get("source");
    GenericKubernetesResource desired =
        withOperation(
            app,
            commandId,
            requestedBy,
            rev,
            source instanceof Map<?, ?> m ? (Map<String, Object>) m : null);
    return Plan.apply(
        desired,
        ref + " rollback to revision " + rev + " (history " + entry.get("id") + ") requested");
  }

  private static GenericKubernetesResource withOperation(
      GenericKubernetesResource app,
      String commandId,
      String requestedBy,
      String revision,
      Map<String, Object> source) {
    GenericKubernetesResource desired = hardRefreshed(app, commandId);

    Map<String, Object> sync = new LinkedHashMap<>();
    if (revision != null) {
      sync.put("revision", revision);
    }
    if (source != null) {
      sync.put("source", source);
    }
    Map<String, Object> operation = new LinkedHashMap<>();
    operation.put(
        "initiatedBy", Map.of("username", "gitopshq:" + (requestedBy == null ? "" : requestedBy)));
    operation.put("info", List.of(Map.of("name", "gitopshq-command", "value", commandId)));
    operation.put("sync", sync);
    desired.getAdditionalProperties().put("operation", operation);
    return desired;
  }

  /** A copy of the Application stamped with the command and Argo CD's hard-refresh annotation. */
  private static GenericKubernetesResource hardRefreshed(
      GenericKubernetesResource app, String commandId) {
    GenericKubernetesResource desired = new GenericKubernetesResource();
    desired.setApiVersion(app.getApiVersion());
    desired.setKind(app.getKind());
    desired.setMetadata(new ObjectMetaBuilder(app.getMetadata()).build());
    Map<String, String> annotations =
        new HashMap<>(Objects.requireNonNullElse(app.getMetadata().getAnnotations(), Map.of()));
    annotations.put(LAST_COMMAND, commandId);
    annotations.put(ARGOCD_REFRESH, "hard");
    desired.getMetadata().setAnnotations(annotations);
    desired.setAdditionalProperties(new LinkedHashMap<>(app.getAdditionalProperties()));
    return desired;
  }

  @SuppressWarnings("unchecked")
  private static String targetRevision(GenericKubernetesResource app) {
    Object spec = app.getAdditionalProperties().get("spec");
    if (spec instanceof Map<?, ?> s && s.get("source") instanceof Map<?, ?> src) {
      Object r = ((Map<String, Object>) src).get("targetRevision");
      return r == null ? null : r.toString();
    }
    return null;
  }

  private static boolean stamped(Map<String, String> annotations, String commandId) {
    return annotations != null && commandId.equals(annotations.get(LAST_COMMAND));
  }
}
