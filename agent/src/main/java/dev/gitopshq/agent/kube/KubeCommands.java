package dev.gitopshq.agent.kube;

import dev.gitopshq.agent.model.CommandPlans;
import dev.gitopshq.agent.model.CommandPlans.Plan;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Reads the target, asks {@link CommandPlans} what it should become, and writes that back with
 * optimistic concurrency (the write carries the resourceVersion it read, so a concurrent change
 * makes it fail and retry rather than overwrite).
 */
public final class KubeCommands {
  /** The Argo CD Application resource. */
  public static final String ARGOCD_API_VERSION = "argoproj.io/v1alpha1";

  private static final int CONFLICT_RETRIES = 3;
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

  private <T extends io.fabric8.kubernetes.api.model.HasMetadata> Outcome apply(
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
          // A JSON patch from what we read to what the plan wants; it carries the
          // resourceVersion we read, so a concurrent writer makes it fail (409) and we re-plan.
          resource.edit(
              read -> {
                if (!java.util.Objects.equals(
                    read.getMetadata().getResourceVersion(),
                    current.getMetadata().getResourceVersion())) {
                  throw new KubernetesClientException("changed since read", 409, null);
                }
                return p.desired();
              });
        }
        return new Outcome(true, p.output(), null);
      } catch (KubernetesClientException e) {
        if (e.getCode() == 409 && attempt < CONFLICT_RETRIES) {
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
}
