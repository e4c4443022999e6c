package dev.gitopshq.agent.inventory;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.v1.InventoryObject;
import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.ContainerStatus;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Namespace;
import io.fabric8.kubernetes.api.model.Node;
import io.fabric8.kubernetes.api.model.NodeCondition;
import io.fabric8.kubernetes.api.model.PersistentVolumeClaim;
import io.fabric8.kubernetes.api.model.Pod;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.DaemonSet;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.DeploymentCondition;
import io.fabric8.kubernetes.api.model.apps.ReplicaSet;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.CronJob;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.batch.v1.JobCondition;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.List;
import java.util.Map;
import java.util.Objects;
import java.util.stream.Collectors;

/**
 * Reduces a Kubernetes object to what the hub's inventory shows: its identity, labels, a short
 * status and a health, derived the way {@code kubectl get} and Argo CD's health checks read them. A
 * Secret or ConfigMap yields its key count, never a value.
 */
public final class Summaries {
  public static final String HEALTHY = "Healthy";
  public static final String PROGRESSING = "Progressing";
  public static final String DEGRADED = "Degraded";
  public static final String SUSPENDED = "Suspended";
  public static final String UNKNOWN = "Unknown";

  /** Labels beyond this many are left out; values are cut to 253 characters. */
  static final int MAX_LABELS = 64;

  private Summaries() {}

  private record Status(String text, String health) {}

  /** The object's summary. */
  public static InventoryObject summarize(HasMetadata o) {
    var meta = o.getMetadata();
    String apiVersion = Objects.toString(o.getApiVersion(), "");
    int slash = apiVersion.indexOf('/');
    InventoryObject.Builder b =
        InventoryObject.newBuilder()
            .setUid(Objects.toString(meta.getUid(), ""))
            .setGroup(slash < 0 ? "" : apiVersion.substring(0, slash))
            .setVersion(slash < 0 ? apiVersion : apiVersion.substring(slash + 1))
            .setKind(Objects.toString(o.getKind(), o.getClass().getSimpleName()))
            .setNamespace(Objects.toString(meta.getNamespace(), ""))
            .setName(Objects.toString(meta.getName(), ""))
            .setResourceVersion(Objects.toString(meta.getResourceVersion(), ""));
    Map<String, String> labels = meta.getLabels();
    if (labels != null) {
      labels.entrySet().stream()
          .sorted(Map.Entry.comparingByKey())
          .limit(MAX_LABELS)
          .forEach(e -> b.putLabels(e.getKey(), cut(Objects.toString(e.getValue(), ""))));
    }
    Instant created = instant(meta.getCreationTimestamp());
    if (created != null) {
      b.setCreatedAt(
          Timestamp.newBuilder()
              .setSeconds(created.getEpochSecond())
              .setNanos(created.getNano())
              .build());
    }
    Status s = status(o);
    return b.setStatus(s.text()).setHealth(s.health()).build();
  }

  private static Status status(HasMetadata o) {
    if (o.getMetadata().getDeletionTimestamp() != null) {
      return new Status("Terminating", PROGRESSING);
    }
    return switch (o) {
      case Pod p -> pod(p);
      case Deployment d -> deployment(d);
      case StatefulSet s ->
          replicas(
              s.getSpec() == null ? null : s.getSpec().getReplicas(),
              s.getStatus() == null ? null : s.getStatus().getReadyReplicas());
      case ReplicaSet r ->
          replicas(
              r.getSpec() == null ? null : r.getSpec().getReplicas(),
              r.getStatus() == null ? null : r.getStatus().getReadyReplicas());
      case DaemonSet d ->
          d.getStatus() == null
              ? new Status("", UNKNOWN)
              : replicas(d.getStatus().getDesiredNumberScheduled(), d.getStatus().getNumberReady());
      case Job j -> job(j);
      case CronJob c -> cronJob(c);
      case Service s ->
          new Status(
              s.getSpec() == null ? "" : Objects.toString(s.getSpec().getType(), "ClusterIP"),
              HEALTHY);
      case Ingress i -> ingress(i);
      case ConfigMap c ->
          keys(
              (c.getData() == null ? 0 : c.getData().size())
                  + (c.getBinaryData() == null ? 0 : c.getBinaryData().size()));
      case Secret s ->
          new Status(
              Objects.toString(s.getType(), "Opaque")
                  + ", "
                  + keys((s.getData() == null ? 0 : s.getData().size())
                          + (s.getStringData() == null ? 0 : s.getStringData().size()))
                      .text(),
              HEALTHY);
      case PersistentVolumeClaim c ->
          phase(c.getStatus() == null ? null : c.getStatus().getPhase());
      case Namespace n ->
          n.getStatus() != null && "Terminating".equals(n.getStatus().getPhase())
              ? new Status("Terminating", PROGRESSING)
              : new Status("Active", HEALTHY);
      case Node n -> node(n);
      default -> new Status("", UNKNOWN);
    };
  }

  private static Status pod(Pod p) {
    var st = p.getStatus();
    String phase = st == null || st.getPhase() == null ? "Pending" : st.getPhase();
    List<ContainerStatus> containers =
        st == null || st.getContainerStatuses() == null ? List.of() : st.getContainerStatuses();
    int total =
        p.getSpec() == null || p.getSpec().getContainers() == null
            ? containers.size()
            : p.getSpec().getContainers().size();
    long ready = containers.stream().filter(c -> Boolean.TRUE.equals(c.getReady())).count();
    for (ContainerStatus c : containers) {
      var waiting = c.getState() == null ? null : c.getState().getWaiting();
      if (waiting != null
          && waiting.getReason() != null
          && List.of("CrashLoopBackOff", "ImagePullBackOff", "ErrImagePull", "CreateContainerError")
              .contains(waiting.getReason())) {
        return new Status(waiting.getReason() + " " + ready + "/" + total, DEGRADED);
      }
    }
    String text = phase + " " + ready + "/" + total;
    return switch (phase) {
      case "Running" -> new Status(text, ready == total ? HEALTHY : PROGRESSING);
      case "Succeeded" -> new Status("Completed", HEALTHY);
      case "Failed" -> new Status(text, DEGRADED);
      case "Pending" -> new Status(text, PROGRESSING);
      default -> new Status(text, UNKNOWN);
    };
  }

  private static Status deployment(Deployment d) {
    int desired =
        d.getSpec() == null || d.getSpec().getReplicas() == null ? 1 : d.getSpec().getReplicas();
    var st = d.getStatus();
    int ready = st == null || st.getReadyReplicas() == null ? 0 : st.getReadyReplicas();
    int updated = st == null || st.getUpdatedReplicas() == null ? 0 : st.getUpdatedReplicas();
    String text = ready + "/" + desired + " ready";
    List<DeploymentCondition> conditions =
        st == null || st.getConditions() == null ? List.of() : st.getConditions();
    boolean deadlineExceeded =
        conditions.stream()
            .anyMatch(
                c ->
                    "Progressing".equals(c.getType())
                        && "False".equals(c.getStatus())
                        && "ProgressDeadlineExceeded".equals(c.getReason()));
    if (deadlineExceeded) {
      return new Status(text + ", progress deadline exceeded", DEGRADED);
    }
    if (d.getSpec() != null && Boolean.TRUE.equals(d.getSpec().getPaused())) {
      return new Status(text + ", paused", SUSPENDED);
    }
    return new Status(text, ready >= desired && updated >= desired ? HEALTHY : PROGRESSING);
  }

  private static Status replicas(Integer desiredOrNull, Integer readyOrNull) {
    int desired = desiredOrNull == null ? 1 : desiredOrNull;
    int ready = readyOrNull == null ? 0 : readyOrNull;
    return new Status(ready + "/" + desired + " ready", ready >= desired ? HEALTHY : PROGRESSING);
  }

  private static Status job(Job j) {
    var st = j.getStatus();
    int completions =
        j.getSpec() == null || j.getSpec().getCompletions() == null
            ? 1
            : j.getSpec().getCompletions();
    int succeeded = st == null || st.getSucceeded() == null ? 0 : st.getSucceeded();
    List<JobCondition> conditions =
        st == null || st.getConditions() == null ? List.of() : st.getConditions();
    String text = succeeded + "/" + completions + " complete";
    if (conditions.stream()
        .anyMatch(c -> "Failed".equals(c.getType()) && "True".equals(c.getStatus()))) {
      return new Status(text + ", failed", DEGRADED);
    }
    if (j.getSpec() != null && Boolean.TRUE.equals(j.getSpec().getSuspend())) {
      return new Status(text + ", suspended", SUSPENDED);
    }
    return new Status(text, succeeded >= completions ? HEALTHY : PROGRESSING);
  }

  private static Status cronJob(CronJob c) {
    String schedule = c.getSpec() == null ? "" : Objects.toString(c.getSpec().getSchedule(), "");
    if (c.getSpec() != null && Boolean.TRUE.equals(c.getSpec().getSuspend())) {
      return new Status(schedule + ", suspended", SUSPENDED);
    }
    return new Status(schedule, HEALTHY);
  }

  private static Status ingress(Ingress i) {
    List<IngressRule> rules =
        i.getSpec() == null || i.getSpec().getRules() == null ? List.of() : i.getSpec().getRules();
    String hosts =
        rules.stream()
            .map(IngressRule::getHost)
            .filter(Objects::nonNull)
            .distinct()
            .collect(Collectors.joining(","));
    return new Status(cut(hosts.isEmpty() ? "*" : hosts), HEALTHY);
  }

  private static Status keys(int n) {
    return new Status(n + (n == 1 ? " key" : " keys"), HEALTHY);
  }

  private static Status phase(String phase) {
    if (phase == null) {
      return new Status("Pending", PROGRESSING);
    }
    return switch (phase) {
      case "Bound" -> new Status(phase, HEALTHY);
      case "Lost" -> new Status(phase, DEGRADED);
      default -> new Status(phase, PROGRESSING);
    };
  }

  private static Status node(Node n) {
    List<NodeCondition> conditions =
        n.getStatus() == null || n.getStatus().getConditions() == null
            ? List.of()
            : n.getStatus().getConditions();
    boolean ready =
        conditions.stream()
            .anyMatch(c -> "Ready".equals(c.getType()) && "True".equals(c.getStatus()));
    boolean cordoned = n.getSpec() != null && Boolean.TRUE.equals(n.getSpec().getUnschedulable());
    String text = (ready ? "Ready" : "NotReady") + (cordoned ? ", SchedulingDisabled" : "");
    return new Status(text, ready ? HEALTHY : DEGRADED);
  }

  private static Instant instant(String rfc3339) {
    if (rfc3339 == null || rfc3339.isEmpty()) {
      return null;
    }
    try {
      return Instant.parse(rfc3339);
    } catch (DateTimeParseException e) {
      return null;
    }
  }

  private static String cut(String s) {
    return s.length() <= 253 ? s : s.substring(0, 253);
  }
}
