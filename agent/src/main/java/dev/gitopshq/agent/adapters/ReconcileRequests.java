package dev.gitopshq.agent.adapters;

import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ReconcileRequested;
import dev.gitopshq.agent.v1.RequestReconcile;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.PatchContext;
import io.fabric8.kubernetes.client.dsl.base.PatchType;
import io.fabric8.kubernetes.client.utils.Serialization;
import java.net.URI;
import java.time.Clock;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Asks the adapters that deliver a branch of a repository to reconcile now, instead of at their
 * next poll: every Flux GitRepository on that repository and branch gets {@code
 * reconcile.fluxcd.io/requestedAt}, every Argo CD Application on it {@code
 * argocd.argoproj.io/refresh=normal}. Whether the agent made them or an operator did does not
 * matter. The repository is matched by its path, so a different host name for the hub still
 * matches. The agent's job runner answers it on the live-read threads (it is as quick as a live
 * read).
 */
public final class ReconcileRequests {
  static final String REQUESTED_AT = "reconcile.fluxcd.io/requestedAt";
  static final String REFRESH = "argocd.argoproj.io/refresh";

  private final Supplier<KubernetesClient> kube;
  private final Clock clock;

  public ReconcileRequests(Supplier<KubernetesClient> kube, Clock clock) {
    this.kube = kube;
    this.clock = clock;
  }

  /** The answer without the adapter.wire capability: nothing is annotated. */
  public static ReconcileRequested refused(RequestReconcile r) {
    return ReconcileRequested.newBuilder()
        .setRequestId(r.getRequestId())
        .setError(AdapterWiring.OFF)
        .build();
  }

  /** Annotates what delivers the branch; never throws. */
  public ReconcileRequested request(RequestReconcile r) {
    ReconcileRequested.Builder out = ReconcileRequested.newBuilder().setRequestId(r.getRequestId());
    String repo = repoPath(r.getRepoUrl());
    KubernetesClient client = kube.get();
    StringBuilder problems = new StringBuilder();
    for (GenericKubernetesResource g :
        list(client, AdapterObjects.GIT_REPOSITORY, "GitRepository", problems)) {
      Map<String, Object> spec = map(g.getAdditionalProperties().get("spec"));
      Map<String, Object> ref = map(spec.get("ref"));
      if (repo.equals(repoPath(String.valueOf(spec.get("url"))))
          && r.getBranch().equals(ref.get("branch"))) {
        annotate(
            client,
            g,
            AdapterObjects.GIT_REPOSITORY,
            REQUESTED_AT,
            clock.instant().toString(),
            out,
            problems);
      }
    }
    for (GenericKubernetesResource a : list(client, AdapterObjects.ARGO, "Application", problems)) {
      Map<String, Object> source = map(map(a.getAdditionalProperties().get("spec")).get("source"));
      if (repo.equals(repoPath(String.valueOf(source.get("repoURL"))))
          && r.getBranch().equals(source.get("targetRevision"))) {
        annotate(client, a, AdapterObjects.ARGO, REFRESH, "normal", out, problems);
      }
    }
    return out.setError(Redactor.redact(problems.toString().trim())).build();
  }

  private static List<GenericKubernetesResource> list(
      KubernetesClient client, String apiVersion, String kind, StringBuilder problems) {
    try {
      return AdapterWiring.kinds(client, apiVersion, kind).inAnyNamespace().list().getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() != 404) {
        problems.append(kind).append(": ").append(e.getMessage()).append(' ');
      }
      return List.of();
    }
  }

  private static void annotate(
      KubernetesClient client,
      GenericKubernetesResource o,
      String apiVersion,
      String annotation,
      String value,
      ReconcileRequested.Builder out,
      StringBuilder problems) {
    String ns = o.getMetadata().getNamespace();
    String name = o.getMetadata().getName();
    try {
      AdapterWiring.op(client, apiVersion, o.getKind(), ns)
          .withName(name)
          .patch(
              PatchContext.of(PatchType.JSON_MERGE),
              Serialization.asJson(
                  Map.of("metadata", Map.of("annotations", Map.of(annotation, value)))));
      out.addObjects(
          AppliedObject.newBuilder()
              .setApiVersion(apiVersion)
              .setKind(o.getKind())
              .setNamespace(ns)
              .setName(name));
    } catch (KubernetesClientException e) {
      problems
          .append(o.getKind())
          .append(' ')
          .append(ns)
          .append('/')
          .append(name)
          .append(": ")
          .append(e.getMessage())
          .append(' ');
    }
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  /** The path of a repository URL without a trailing {@code .git} or slash. */
  static String repoPath(String url) {
    String path;
    try {
      path = Objects.requireNonNullElse(URI.create(url.trim()).getPath(), url);
    } catch (IllegalArgumentException e) {
      path = url;
    }
    if (path.endsWith("/")) {
      path = path.substring(0, path.length() - 1);
    }
    return path.endsWith(".git") ? path.substring(0, path.length() - 4) : path;
  }
}
