package dev.gitopshq.agent.inspect;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.deploy.RolloutHealth;
import dev.gitopshq.agent.link.Redactor;
import dev.gitopshq.agent.v1.ArgoApplication;
import dev.gitopshq.agent.v1.ArgoApplications;
import dev.gitopshq.agent.v1.ArgoHistory;
import dev.gitopshq.agent.v1.ClusterAddresses;
import dev.gitopshq.agent.v1.FluxKustomization;
import dev.gitopshq.agent.v1.ListApplications;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.base.ResourceDefinitionContext;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.function.Supplier;

/**
 * Lists the cluster's Argo CD Applications for the hub (capability {@code argocd.read}): their sync
 * and health status, source, destination, last sync and history, read from the Application objects
 * through the Kubernetes API. At most {@link #MAX_APPLICATIONS}; history entries at most {@link
 * #MAX_HISTORY} per Application (Argo CD keeps 10 by default).
 */
public final class ArgoApplicationsReader {
  public static final String API_VERSION = "argoproj.io/v1alpha1";
  static final int MAX_APPLICATIONS = 1_000;
  static final int MAX_HISTORY = 50;

  private final Supplier<KubernetesClient> kube;
  private final String serverUrl;

  /**
   * @param serverUrl the Argo CD server's URL (the chart's {@code argocd.server}); may be empty
   */
  public ArgoApplicationsReader(Supplier<KubernetesClient> kube, String serverUrl) {
    this.kube = kube;
    this.serverUrl = serverUrl;
  }

  static final ResourceDefinitionContext KUSTOMIZATIONS =
      new ResourceDefinitionContext.Builder()
          .withGroup("kustomize.toolkit.fluxcd.io")
          .withVersion("v1")
          .withPlural("kustomizations")
          .withKind("Kustomization")
          .withNamespaced(true)
          .build();
  static final ResourceDefinitionContext GIT_REPOSITORIES =
      new ResourceDefinitionContext.Builder()
          .withGroup("source.toolkit.fluxcd.io")
          .withVersion("v1")
          .withPlural("gitrepositories")
          .withKind("GitRepository")
          .withNamespaced(true)
          .build();

  /**
   * The Applications (when {@code argo}) and the Flux Kustomizations (when {@code flux}); a list
   * that cannot be read is left out and said in {@code error}.
   */
  public ArgoApplications list(ListApplications req, boolean argo, boolean flux) {
    ArgoApplications.Builder out =
        argo
            ? list(req).toBuilder()
            : ArgoApplications.newBuilder()
                .setRequestId(req.getRequestId())
                .setServerUrl(serverUrl);
    if (flux) {
      try {
        kustomizations(out);
      } catch (KubernetesClientException e) {
        if (e.getCode() != 404) {
          // Flux not installed is normal (404); anything else is said.
          String note = "Flux kustomizations could not be listed (" + e.getCode() + ")";
          out.setError(out.getError().isEmpty() ? note : out.getError() + "; " + note);
        }
      }
    }
    return out.build();
  }

  private void kustomizations(ArgoApplications.Builder out) {
    KubernetesClient client = kube.get();
    Map<String, GenericKubernetesResource> repos = new HashMap<>();
    for (GenericKubernetesResource r :
        client.genericKubernetesResources(GIT_REPOSITORIES).inAnyNamespace().list().getItems()) {
      repos.put(r.getMetadata().getNamespace() + "/" + r.getMetadata().getName(), r);
    }
    client.genericKubernetesResources(KUSTOMIZATIONS).inAnyNamespace().list().getItems().stream()
        .limit(MAX_APPLICATIONS)
        .forEach(
            k -> {
              Map<String, Object> root = k.getAdditionalProperties();
              String ns = Objects.toString(k.getMetadata().getNamespace(), "");
              String sourceNs = or(text(root, "spec", "sourceRef", "namespace"), ns);
              GenericKubernetesResource repo =
                  "GitRepository".equals(text(root, "spec", "sourceRef", "kind"))
                      ? repos.get(sourceNs + "/" + text(root, "spec", "sourceRef", "name"))
                      : null;
              FluxKustomization.Builder b =
                  FluxKustomization.newBuilder()
                      .setNamespace(ns)
                      .setName(Objects.toString(k.getMetadata().getName(), ""))
                      .setPath(text(root, "spec", "path"))
                      .setAppliedRevision(text(root, "status", "lastAppliedRevision"))
                      .setReady("Unknown");
              if (repo != null) {
                b.setRepoUrl(text(repo.getAdditionalProperties(), "spec", "url"))
                    .setBranch(text(repo.getAdditionalProperties(), "spec", "ref", "branch"));
              }
              if (get(root, "status", "conditions") instanceof List<?> conditions) {
                for (Object c : conditions) {
                  if (c instanceof Map<?, ?> m && "Ready".equals(m.get("type"))) {
                    b.setReady(Objects.toString(m.get("status"), "Unknown"))
                        .setReadyMessage(Objects.toString(m.get("message"), ""));
                  }
                }
              }
              if (!Boolean.TRUE.equals(get(root, "spec", "wait"))) {
                workloads(client, root, b);
              }
              out.addKustomizations(b);
            });
  }

  /** The most workloads of one Kustomization whose health the agent reads. */
  static final int MAX_WORKLOADS = 50;

  /**
   * The health of the workloads a Kustomization applied (its {@code status.inventory}), read live
   * and judged as direct deploy judges a rollout: the first one not healthy decides.
   */
  private static void workloads(
      KubernetesClient client, Map<String, Object> root, FluxKustomization.Builder b) {
    if (!(get(root, "status", "inventory", "entries") instanceof List<?> entries)) {
      return;
    }
    RolloutHealth.Verdict worst = null;
    int read = 0;
    for (Object e : entries) {
      if (!(e instanceof Map<?, ?> entry) || read >= MAX_WORKLOADS) {
        continue;
      }
      // id: <namespace>_<name>_<group>_<kind>; v: the version
      String[] id = Objects.toString(entry.get("id"), "").split("_", -1);
      if (id.length != 4) {
        continue;
      }
      String apiVersion =
          (id[2].isEmpty() ? "" : id[2] + "/") + Objects.toString(entry.get("v"), "v1");
      if (!RolloutHealth.watched(apiVersion, id[3])) {
        continue;
      }
      read++;
      GenericKubernetesResource live =
          client
              .genericKubernetesResources(apiVersion, id[3])
              .inNamespace(id[0])
              .withName(id[1])
              .get();
      RolloutHealth.Verdict v =
          live == null
              ? new RolloutHealth.Verdict(RolloutHealth.State.PROGRESSING, "not created yet")
              : RolloutHealth.assess(live);
      if (v.state() != RolloutHealth.State.HEALTHY
          && (worst == null || v.state().ordinal() > worst.state().ordinal())) {
        worst =
            new RolloutHealth.Verdict(
                v.state(), id[3] + " " + id[0] + "/" + id[1] + ": " + v.message());
      }
    }
    if (read == 0) {
      return;
    }
    b.setWorkloads(worst == null ? RolloutHealth.State.HEALTHY.wire() : worst.state().wire())
        .setWorkloadsMessage(worst == null ? "" : worst.message());
  }

  public ArgoApplications list(ListApplications req) {
    ArgoApplications.Builder out =
        ArgoApplications.newBuilder().setRequestId(req.getRequestId()).setServerUrl(serverUrl);
    List<GenericKubernetesResource> items;
    try {
      items =
          kube.get()
              .genericKubernetesResources(API_VERSION, "Application")
              .inAnyNamespace()
              .list()
              .getItems();
    } catch (KubernetesClientException e) {
      if (e.getCode() == 403) {
        return out.setForbidden(true)
            .setError("the agent's RBAC does not allow listing applications.argoproj.io")
            .build();
      }
      if (e.getCode() == 404) {
        return out.setError("Argo CD's Application CRD is not installed in this cluster").build();
      }
      return out.setError(
              ClusterAddresses.redact(
                  Redactor.redact("listing Argo CD applications failed: " + e.getMessage())))
          .build();
    }
    items.stream()
        .sorted(
            Comparator.comparing((GenericKubernetesResource a) -> a.getMetadata().getNamespace())
                .thenComparing(a -> a.getMetadata().getName()))
        .limit(MAX_APPLICATIONS)
        .forEach(a -> out.addApplications(application(a)));
    if (items.size() > MAX_APPLICATIONS) {
      out.setError("only the first " + MAX_APPLICATIONS + " of " + items.size() + " applications");
    }
    return out.build();
  }

  static ArgoApplication application(GenericKubernetesResource a) {
    Map<String, Object> root = a.getAdditionalProperties();
    ArgoApplication.Builder b =
        ArgoApplication.newBuilder()
            .setNamespace(Objects.toString(a.getMetadata().getNamespace(), ""))
            .setName(Objects.toString(a.getMetadata().getName(), ""))
            .setProject(text(root, "spec", "project"))
            .setSyncStatus(or(text(root, "status", "sync", "status"), "Unknown"))
            .setHealthStatus(or(text(root, "status", "health", "status"), "Unknown"))
            .setHealthMessage(text(root, "status", "health", "message"))
            .setRepoUrl(text(root, "spec", "source", "repoURL"))
            .setPath(text(root, "spec", "source", "path"))
            .setTargetRevision(text(root, "spec", "source", "targetRevision"))
            .setChart(text(root, "spec", "source", "chart"))
            .setDestinationServer(text(root, "spec", "destination", "server"))
            .setDestinationName(text(root, "spec", "destination", "name"))
            .setDestinationNamespace(text(root, "spec", "destination", "namespace"))
            .setSyncedRevision(text(root, "status", "sync", "revision"))
            .setOperationPhase(text(root, "status", "operationState", "phase"))
            .setOperationRevision(text(root, "status", "operationState", "syncResult", "revision"));
    Instant finished = instant(text(root, "status", "operationState", "finishedAt"));
    if (finished == null) {
      finished = instant(text(root, "status", "reconciledAt"));
    }
    if (finished != null) {
      b.setLastSyncedAt(ts(finished));
    }
    if (get(root, "status", "history") instanceof List<?> history) {
      int from = Math.max(0, history.size() - MAX_HISTORY);
      for (Object h : history.subList(from, history.size())) {
        if (h instanceof Map<?, ?> e) {
          @SuppressWarnings("unchecked")
          Map<String, Object> entry = (Map<String, Object>) e;
          ArgoHistory.Builder hb =
              ArgoHistory.newBuilder()
                  .setRevision(text(entry, "revision"))
                  .setRepoUrl(text(entry, "source", "repoURL"))
                  .setPath(text(entry, "source", "path"));
          try {
            hb.setId(Long.parseLong(text(entry, "id")));
          } catch (NumberFormatException ignored) {
            // An entry without a numeric id is still shown.
          }
          Instant deployed = instant(text(entry, "deployedAt"));
          if (deployed != null) {
            hb.setDeployedAt(ts(deployed));
          }
          b.addHistory(hb);
        }
      }
    }
    return b.build();
  }

  private static Object get(Map<String, Object> root, String... path) {
    Object cur = root;
    for (String p : path) {
      if (!(cur instanceof Map<?, ?> m)) {
        return null;
      }
      cur = m.get(p);
    }
    return cur;
  }

  private static String text(Map<String, Object> root, String... path) {
    Object v = get(root, path);
    String s = v == null ? "" : v.toString();
    return s.length() <= 2048 ? s : s.substring(0, 2048);
  }

  private static String or(String s, String fallback) {
    return s.isEmpty() ? fallback : s;
  }

  private static Instant instant(String s) {
    if (s.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(s);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static Timestamp ts(Instant i) {
    return Timestamp.newBuilder().setSeconds(i.getEpochSecond()).setNanos(i.getNano()).build();
  }
}
