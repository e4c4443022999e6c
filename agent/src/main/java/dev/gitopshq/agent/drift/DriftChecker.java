package dev.gitopshq.agent.drift;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import dev.gitopshq.agent.kube.KubeCommands;
import dev.gitopshq.agent.v1.CheckDrift;
import dev.gitopshq.agent.v1.DesiredObject;
import dev.gitopshq.agent.v1.DriftDifference;
import dev.gitopshq.agent.v1.DriftObjectResult;
import dev.gitopshq.agent.v1.DriftReport;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.io.IOException;
import java.time.Clock;
import java.time.Instant;
import java.util.List;
import java.util.Map;
import java.util.function.Supplier;

/**
 * Compares the desired objects of a {@link CheckDrift} with the live ones the way Argo CD's
 * server-side diff does: a server-side-apply dry run ({@code dryRun=All}, forcing conflicts) with
 * the object's field manager returns what applying the desired state would make the object, and
 * {@link DriftDiff} compares that with the live object, so fields the API server defaults do not
 * count. When RBAC forbids the dry run (a read-only agent), the desired fields are compared with
 * the live object instead ({@code live-subset}).
 *
 * <p>The field manager is {@value #ARGOCD_MANAGER} for an object an Argo CD Application manages
 * (its {@value #INSTANCE_LABEL} label or {@value #TRACKING_ANNOTATION} annotation), the agent's
 * direct-deploy field manager otherwise.
 */
public final class DriftChecker {
  /** The field manager Argo CD's application controller applies with. */
  public static final String ARGOCD_MANAGER = "argocd-controller";

  public static final String INSTANCE_LABEL = "argocd.argoproj.io/instance";
  public static final String TRACKING_ANNOTATION = "argocd.argoproj.io/tracking-id";

  /** The namespace of Applications named only by the instance label. */
  public static final String ARGOCD_NAMESPACE = "argocd";

  private static final ObjectMapper JSON = new ObjectMapper();

  /**
   * The most characters of difference values one report carries (the hub reads at most 16 MiB per
   * message); past it, differences keep their path and severity but not their values.
   */
  static final int REPORT_VALUE_BUDGET = 6 * 1024 * 1024;

  private final Supplier<KubernetesClient> client;
  private final String directFieldManager;
  private final Clock clock;

  public DriftChecker(Supplier<KubernetesClient> client, String directFieldManager, Clock clock) {
    this.client = client;
    this.directFieldManager = directFieldManager;
    this.clock = clock;
  }

  /** Compares every object of the request; one result per object, in the request's order. */
  public DriftReport check(CheckDrift request) {
    DriftReport.Builder report = DriftReport.newBuilder().setCheckId(request.getCheckId());
    Instant deadline =
        request.hasDeadline()
            ? Instant.ofEpochSecond(
                request.getDeadline().getSeconds(), request.getDeadline().getNanos())
            : Instant.MAX;
    int[] budget = {REPORT_VALUE_BUDGET};
    for (DesiredObject o : request.getObjectsList()) {
      DriftObjectResult.Builder r =
          DriftObjectResult.newBuilder()
              .setGroup(o.getGroup())
              .setVersion(o.getVersion())
              .setKind(o.getKind())
              .setNamespace(o.getNamespace())
              .setName(o.getName());
      if (clock.instant().isAfter(deadline)) {
        report.addObjects(
            r.setState(DriftObjectResult.State.FAILED).setError("the check's deadline passed"));
        continue;
      }
      try {
        compare(o, r, budget);
      } catch (KubernetesClientException e) {
        // Code 0 or -1: the client refused before any answer (no namespace, no connection).
        r.setState(DriftObjectResult.State.FAILED)
            .setError(
                e.getCode() > 0
                    ? "the API server answered " + e.getCode() + ": " + shortMessage(e)
                    : "cannot compare: " + shortMessage(e) + cause(e));
      } catch (IOException | RuntimeException e) {
        r.setState(DriftObjectResult.State.FAILED).setError("cannot compare: " + e.getMessage());
      }
      report.addObjects(r);
    }
    return report.build();
  }

  private void compare(DesiredObject o, DriftObjectResult.Builder r, int[] budget)
      throws IOException {
    GenericKubernetesResource desired =
        JSON.readValue(o.getManifest(), GenericKubernetesResource.class);
    GenericKubernetesResource live = resource(desired, o.getNamespace()).get();
    if (live == null) {
      r.setState(DriftObjectResult.State.MISSING).setFieldManager(managerFor(null));
      return;
    }
    String application = argoApplication(live);
    String manager = application.isEmpty() ? directFieldManager : ARGOCD_MANAGER;
    r.setFieldManager(manager).setArgoApplication(application);
    JsonNode liveTree = JSON.valueToTree(live);
    List<DriftDiff.Difference> diffs;
    try {
      GenericKubernetesResource dryRun =
          resource(desired, o.getNamespace())
              .dryRun()
              .fieldManager(manager)
              .forceConflicts()
              .serverSideApply();
      r.setMethod("dry-run-apply");
      diffs = DriftDiff.compare(JSON.valueToTree(dryRun), liveTree);
    } catch (KubernetesClientException e) {
      if (e.getCode() != 403) {
        throw e;
      }
      r.setMethod("live-subset");
      diffs = DriftDiff.compareSubset(JSON.valueToTree(desired), liveTree);
    }
    for (DriftDiff.Difference d : diffs) {
      int cost = d.desired().length() + d.live().length();
      boolean fits = cost <= budget[0];
      budget[0] -= fits ? cost : 0;
      String omitted = "\"(omitted: the report reached its size limit)\"";
      r.addDifferences(
          DriftDifference.newBuilder()
              .setPath(d.path())
              .setDesired(fits ? d.desired() : omitted)
              .setLive(fits ? d.live() : omitted)
              .setSeverity(d.severity()));
    }
    r.setState(diffs.isEmpty() ? DriftObjectResult.State.IN_SYNC : DriftObjectResult.State.DRIFTED);
  }

  private String managerFor(GenericKubernetesResource live) {
    return live == null || argoApplication(live).isEmpty() ? directFieldManager : ARGOCD_MANAGER;
  }

  /**
   * Re-applies a desired object with server-side apply, forcing conflicts, as {@code fieldManager}
   * (the resolve-drift command without Argo CD).
   */
  public KubeCommands.Outcome apply(String manifest, String namespace, String fieldManager) {
    try {
      GenericKubernetesResource desired = JSON.readValue(manifest, GenericKubernetesResource.class);
      resource(desired, namespace).fieldManager(fieldManager).forceConflicts().serverSideApply();
      return new KubeCommands.Outcome(
          true,
          desired.getKind()
              + " "
              + (namespace.isEmpty() ? "" : namespace + "/")
              + desired.getMetadata().getName()
              + " re-applied with server-side apply as "
              + fieldManager,
          "");
    } catch (KubernetesClientException e) {
      return new KubeCommands.Outcome(
          false, "", "the API server answered " + e.getCode() + ": " + shortMessage(e));
    } catch (IOException | RuntimeException e) {
      return new KubeCommands.Outcome(false, "", "cannot apply: " + e.getMessage());
    }
  }

  private Resource<GenericKubernetesResource> resource(
      GenericKubernetesResource desired, String namespace) {
    KubernetesClient c = client.get();
    return namespace.isEmpty() ? c.resource(desired) : c.resource(desired).inNamespace(namespace);
  }

  /**
   * The Argo CD Application that manages a live object, as namespace/name: from the tracking
   * annotation ({@code <app>:<group>/<kind>:<namespace>/<name>}, where {@code <app>} is {@code
   * <namespace>_<name>} for Applications outside the control plane's namespace) or the instance
   * label; empty when none does.
   */
  static String argoApplication(GenericKubernetesResource live) {
    Map<String, String> annotations = live.getMetadata().getAnnotations();
    String app = "";
    if (annotations != null && annotations.get(TRACKING_ANNOTATION) != null) {
      String t = annotations.get(TRACKING_ANNOTATION);
      int colon = t.indexOf(':');
      app = colon < 0 ? t : t.substring(0, colon);
    } else if (live.getMetadata().getLabels() != null
        && live.getMetadata().getLabels().get(INSTANCE_LABEL) != null) {
      app = live.getMetadata().getLabels().get(INSTANCE_LABEL);
    }
    if (app.isBlank()) {
      return "";
    }
    int underscore = app.indexOf('_');
    return underscore < 0
        ? ARGOCD_NAMESPACE + "/" + app
        : app.substring(0, underscore) + "/" + app.substring(underscore + 1);
  }

  /** " (why)" from the exception's first cause (a refused connection, a timeout), or "". */
  private static String cause(Exception e) {
    Throwable c = e.getCause();
    if (c == null || c.getMessage() == null || c.getMessage().isBlank()) {
      return "";
    }
    String m = c.getMessage();
    return " (" + (m.length() <= 200 ? m : m.substring(0, 200) + "…") + ")";
  }

  private static String shortMessage(KubernetesClientException e) {
    String m =
        e.getStatus() != null && e.getStatus().getMessage() != null
            ? e.getStatus().getMessage()
            : String.valueOf(e.getMessage());
    return m.length() <= 300 ? m : m.substring(0, 300) + "…";
  }
}
