package dev.gitopshq.agent.kube;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.agent.model.CommandPlans;
import dev.gitopshq.agent.model.CommandPlans.Plan;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.zjsonpatch.DiffFlags;
import io.fabric8.zjsonpatch.JsonDiff;
import java.util.EnumSet;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads the target, asks {@link CommandPlans} what it should become, and writes back the difference
 * with optimistic concurrency on the fields it changes (see {@link #guardedPatch}): a concurrent
 * change to them makes the write fail and the command re-plan rather than overwrite.
 */
public final class KubeCommands {
  /** The Argo CD Application resource. */
  public static final String ARGOCD_API_VERSION = "argoproj.io/v1alpha1";

  private static final int CONFLICT_RETRIES = 3;
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Supplier<KubernetesClient> client;

  public KubeCommands(Supplier<KubernetesClient> client) {
    this.client = client;
  }

  /** What happened: the output for people, or an error. */
  public record Outcome(boolean success, String output, String error) {}

  public Outcome scale(String namespace, String name, String commandId, int replicas) {
    return deployment(namespace, name, d -> CommandPlans.scale(d, commandId, replicas));
  }

  public Outcome restart(String namespace, String name, String commandId) {
    return deployment(namespace, name, d -> CommandPlans.restart(d, commandId));
  }

  public Outcome sync(
      String namespace, String name, String commandId, String requestedBy, String revision) {
    return application(
        namespace, name, a -> CommandPlans.sync(a, commandId, requestedBy, revision));
  }

  public Outcome refresh(String namespace, String name, String commandId) {
    return application(namespace, name, a -> CommandPlans.refresh(a, commandId));
  }

  public Outcome rollback(
      String namespace,
      String name,
      String commandId,
      String requestedBy,
      String historyId,
      String revision) {
    return application(
        namespace,
        name,
        a -> CommandPlans.rollback(a, commandId, requestedBy, historyId, revision));
  }

  private Outcome deployment(
      String namespace, String name, Function<Deployment, Plan<Deployment>> plan) {
    return apply(
        "deployment.apps/" + name + " in namespace " + namespace,
        client.get().apps().deployments().inNamespace(namespace).withName(name),
        plan);
  }

  private Outcome application(
      String namespace,
      String name,
      Function<GenericKubernetesResource, Plan<GenericKubernetesResource>> plan) {
    return apply(
        "application " + namespace + "/" + name,
        client
            .get()
            .genericKubernetesResources(ARGOCD_API_VERSION, "Application")
            .inNamespace(namespace)
            .withName(name),
        plan);
  }

  private <T extends HasMetadata> Outcome apply(
      String what, Resource<T> resource, Function<T, Plan<T>> plan) {
    for (int attempt = 1; ; attempt++) {
      try {
        T current = resource.get();
        if (current == null) {
          return new Outcome(false, "", what + " not found");
        }
        Plan<T> p = plan.apply(current);
        if (p.error() != null) {
          return new Outcome(false, "", p.error());
        }
        if (!p.alreadyApplied()) {
          resource.patch(PatchContext.of(PatchType.JSON), guardedPatch(current, p.desired()));
        }
        return new Outcome(true, p.output(), null);
      } catch (KubernetesClientException e) {
        // 422: a test operation failed, someone changed a field this plan changes; re-read.
        if ((e.getCode() == 409 || e.getCode() == 422) && attempt < CONFLICT_RETRIES) {
          continue;
        }
        String reason =
            e.getStatus() != null && e.getStatus().getMessage() != null
                ? e.getStatus().getMessage()
                : e.getMessage();
        return new Outcome(false, "", what + ": " + reason);
      }
    }
  }

  /**
   * A JSON patch from what was read to what the plan wants, guarded field by field: each value it
   * replaces or removes is first tested to be still what was read. A concurrent change to one of
   * those fields fails the patch (and the command re-reads and re-plans), while a change elsewhere
   * does not: the controllers write a Deployment's status all through a rollout, so a guard on the
   * whole object's resourceVersion failed a scale of a Deployment that was still scaling.
   */
  static String guardedPatch(Object current, Object desired) {
    JsonNode from = JSON.valueToTree(current);
    JsonNode to = JSON.valueToTree(desired);
    return JsonDiff.asJson(
            from,
            to,
            EnumSet.of(
                DiffFlags.OMIT_MOVE_OPERATION,
                DiffFlags.OMIT_COPY_OPERATION,
                DiffFlags.EMIT_TEST_OPERATIONS))
        .toString();
  }
}
