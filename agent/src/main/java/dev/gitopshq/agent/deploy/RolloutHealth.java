package dev.gitopshq.agent.deploy;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;

/**
 * When an applied object counts as healthy: a Deployment, StatefulSet or DaemonSet once its
 * controller has observed the applied generation and rolled it out (every replica updated and
 * available or ready), a Job once it is complete. Every other kind is healthy once applied.
 */
public final class RolloutHealth {
  /** The kinds the apply waits for. */
  public static final Set<String> WATCHED = Set.of("Deployment", "StatefulSet", "DaemonSet", "Job");

  /** healthy, progressing (keep waiting) or degraded (stop waiting: it will not get better). */
  public enum State {
    HEALTHY,
    PROGRESSING,
    DEGRADED;

    public String wire() {
      return name().toLowerCase(Locale.ROOT);
    }
  }

  /** A state and a line for people. */
  public record Verdict(State state, String message) {}

  private RolloutHealth() {}

  /** Whether the apply waits for this kind. */
  public static boolean watched(String apiVersion, String kind) {
    return WATCHED.contains(kind)
        && (apiVersion.equals("apps/v1") || apiVersion.equals("batch/v1"));
  }

  /** Assesses a live object as its controller left it. */
  public static Verdict assess(GenericKubernetesResource live) {
    if (live == null) {
      return new Verdict(State.DEGRADED, "the object is gone");
    }
    Map<String, Object> spec = map(live.getAdditionalProperties().get("spec"));
    Map<String, Object> status = map(live.getAdditionalProperties().get("status"));
    long generation =
        live.getMetadata().getGeneration() == null ? 0 : live.getMetadata().getGeneration();
    long observed = num(status.get("observedGeneration"));
    return switch (live.getKind()) {
      case "Deployment" -> deployment(spec, status, generation, observed);
      case "StatefulSet" -> statefulSet(spec, status, generation, observed);
      case "DaemonSet" -> daemonSet(status, generation, observed);
      case "Job" -> job(status);
      default -> new Verdict(State.HEALTHY, "applied");
    };
  }

  private static Verdict deployment(
      Map<String, Object> spec, Map<String, Object> status, long generation, long observed) {
    for (Map<String, Object> c : conditions(status)) {
      if ("Progressing".equals(c.get("type"))
          && "ProgressDeadlineExceeded".equals(c.get("reason"))) {
        return new Verdict(State.DEGRADED, "rollout stalled: " + c.getOrDefault("message", ""));
      }
    }
    if (observed < generation) {
      return new Verdict(State.PROGRESSING, "waiting for the controller to observe the change");
    }
    long want = spec.containsKey("replicas") ? num(spec.get("replicas")) : 1;
    long updated = num(status.get("updatedReplicas"));
    long available = num(status.get("availableReplicas"));
    long total = num(status.get("replicas"));
    if (updated < want) {
      return new Verdict(State.PROGRESSING, updated + " of " + want + " replicas updated");
    }
    if (total > updated) {
      return new Verdict(
          State.PROGRESSING, (total - updated) + " old replicas are still terminating");
    }
    if (available < want) {
      return new Verdict(State.PROGRESSING, available + " of " + want + " replicas available");
    }
    return new Verdict(State.HEALTHY, "rolled out: " + available + "/" + want + " available");
  }

  private static Verdict statefulSet(
      Map<String, Object> spec, Map<String, Object> status, long generation, long observed) {
    if (observed < generation) {
      return new Verdict(State.PROGRESSING, "waiting for the controller to observe the change");
    }
    long want = spec.containsKey("replicas") ? num(spec.get("replicas")) : 1;
    long ready = num(status.get("readyReplicas"));
    long updated = num(status.get("updatedReplicas"));
    Object current = status.get("currentRevision");
    Object update = status.get("updateRevision");
    if (updated < want || (update != null && !update.equals(current))) {
      return new Verdict(State.PROGRESSING, updated + " of " + want + " replicas updated");
    }
    if (ready < want) {
      return new Verdict(State.PROGRESSING, ready + " of " + want + " replicas ready");
    }
    return new Verdict(State.HEALTHY, "rolled out: " + ready + "/" + want + " ready");
  }

  private static Verdict daemonSet(Map<String, Object> status, long generation, long observed) {
    if (observed < generation) {
      return new Verdict(State.PROGRESSING, "waiting for the controller to observe the change");
    }
    long want = num(status.get("desiredNumberScheduled"));
    long updated = num(status.get("updatedNumberScheduled"));
    long available = num(status.get("numberAvailable"));
    if (updated < want) {
      return new Verdict(State.PROGRESSING, updated + " of " + want + " pods updated");
    }
    if (available < want) {
      return new Verdict(State.PROGRESSING, available + " of " + want + " pods available");
    }
    return new Verdict(State.HEALTHY, "rolled out: " + available + "/" + want + " available");
  }

  private static Verdict job(Map<String, Object> status) {
    for (Map<String, Object> c : conditions(status)) {
      if ("True".equals(c.get("status"))) {
        if ("Complete".equals(c.get("type"))) {
          return new Verdict(State.HEALTHY, "complete");
        }
        if ("Failed".equals(c.get("type"))) {
          return new Verdict(
              State.DEGRADED, "failed: " + c.getOrDefault("message", c.get("reason")));
        }
      }
    }
    return new Verdict(
        State.PROGRESSING, num(status.get("succeeded")) + " succeeded, waiting for completion");
  }

  @SuppressWarnings("unchecked")
  private static List<Map<String, Object>> conditions(Map<String, Object> status) {
    Object c = status.get("conditions");
    if (c instanceof List<?> l) {
      return l.stream().filter(Map.class::isInstance).map(x -> (Map<String, Object>) x).toList();
    }
    return List.of();
  }

  @SuppressWarnings("unchecked")
  private static Map<String, Object> map(Object o) {
    return o instanceof Map<?, ?> m ? (Map<String, Object>) m : Map.of();
  }

  private static long num(Object o) {
    return o instanceof Number n ? n.longValue() : 0;
  }
}
