package dev.gitopshq.agent.deploy;

import com.google.protobuf.Timestamp;
import dev.gitopshq.agent.config.DirectDeployConfig;
import dev.gitopshq.agent.v1.AppliedObject;
import dev.gitopshq.agent.v1.ApplyRelease;
import dev.gitopshq.agent.v1.ApplyResult;
import dev.gitopshq.agent.v1.ObjectResult;
import dev.gitopshq.agent.v1.TenantFences;
import io.fabric8.kubernetes.api.model.APIResource;
import io.fabric8.kubernetes.api.model.APIResourceList;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.GenericKubernetesResourceList;
import io.fabric8.kubernetes.client.KubernetesClient;
import io.fabric8.kubernetes.client.KubernetesClientException;
import io.fabric8.kubernetes.client.dsl.NonNamespaceOperation;
import io.fabric8.kubernetes.client.dsl.Resource;
import java.time.Clock;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Applies a release in direct-deploy mode ({@code direct.deploy}): the {@link ApplyPlan} first, and
 * when it refuses any object (outside the project's fence, or an existing object GitOpsHQ does not
 * manage for this project) nothing at all; otherwise server-side apply of every object of the plan
 * with the configured field manager, then pruning of what the release no longer holds (only objects
 * that still carry the delivery's labels), then waiting for {@link RolloutHealth} until the apply's
 * health timeout.
 *
 * <p>Whether an apply runs is the agent's job runner's concern: one at a time, each apply id at
 * most once while the agent lives (a repeat is answered with the first result), not after its
 * deadline, only with {@code direct.deploy}; {@link #refused} and {@link #expired} are its answers.
 * The agent persists nothing; after a restart a repeat is applied again, which server-side apply
 * makes harmless: the same objects with the same field manager change nothing.
 */
public final class DirectDeployer {
  private static final Logger log = LoggerFactory.getLogger(DirectDeployer.class);
  private static final Duration POLL = Duration.ofMillis(500);

  /** The longest the agent waits for rollout health, whatever the hub asks (15 minutes). */
  static final int MAX_HEALTH_SECONDS = 900;

  private final DirectDeployConfig config;
  private final Supplier<KubernetesClient> kube;
  private final Clock clock;

  public DirectDeployer(DirectDeployConfig config, Supplier<KubernetesClient> kube, Clock clock) {
    this.config = config;
    this.kube = kube;
    this.clock = clock;
  }

  /** The answer to an apply on an agent without {@code direct.deploy}: nothing is applied. */
  public ApplyResult refused(ApplyRelease r) {
    return result(
        r,
        ApplyResult.Outcome.REFUSED,
        List.of(),
        "this agent does not have the direct.deploy capability");
  }

  /** The answer to an apply whose deadline had passed before it could start. */
  public ApplyResult expired(ApplyRelease r) {
    return result(
        r,
        ApplyResult.Outcome.EXPIRED,
        List.of(),
        "the apply's deadline had passed; nothing was applied");
  }

  /**
   * Applies on the calling thread (one of the job runner's: it may wait minutes for rollout health,
   * and stops waiting when interrupted) and returns the result; never throws.
   */
  public ApplyResult apply(ApplyRelease r) {
    log.info(
        "direct apply {}: {} files of project {} environment {} at {} requested by {}",
        r.getApplyId(),
        r.getFilesCount(),
        r.getProject(),
        r.getEnvironment(),
        r.getCommit(),
        r.getRequestedBy());
    ApplyResult out;
    try {
      out = applyPlanned(r);
    } catch (RuntimeException e) {
      out =
          result(
              r,
              ApplyResult.Outcome.FAILED,
              List.of(),
              "unexpected error: " + String.valueOf(e.getMessage()));
    }
    log.info(
        "direct apply {} {}: {} objects", r.getApplyId(), out.getOutcome(), out.getObjectsCount());
    return out;
  }

  private ApplyResult applyPlanned(ApplyRelease r) {
    KubernetesClient client = kube.get();
    Map<String, Map<String, Boolean>> discovered = new HashMap<>();
    ApplyPlan plan =
        ApplyPlan.of(
            r.getProject(),
            r.getEnvironment(),
            r.getFilesList(),
            r.getPreviousList(),
            config.defaultNamespace(),
            r.hasFence() ? r.getFence() : TenantFences.DEFAULT,
            (apiVersion, kind) -> namespaced(client, discovered, apiVersion, kind),
            identity -> liveLabels(client, identity));
    if (!plan.refused().isEmpty()) {
      return refused(r, plan);
    }
    List<ObjectResult> results = new ArrayList<>(plan.failures());
    results.addAll(plan.kept());
    boolean failed = !plan.failures().isEmpty();

    List<ApplyPlan.Planned> applied = new ArrayList<>();
    Map<ApplyPlan.Planned, ObjectResult.Builder> lines = new LinkedHashMap<>();
    for (ApplyPlan.Planned p : plan.apply()) {
      ObjectResult.Builder line =
          ObjectResult.newBuilder().setObject(p.identity()).setPath(p.path());
      try {
        resource(client, p.identity())
            .resource(p.object())
            .fieldManager(config.fieldManager())
            .forceConflicts()
            .serverSideApply();
        line.setAction("applied").setHealth("healthy").setMessage("applied");
        applied.add(p);
      } catch (KubernetesClientException e) {
        failed = true;
        line.setAction("failed").setHealth("failed").setMessage(apiMessage(e));
      }
      lines.put(p, line);
    }

    List<ObjectResult> prunes = new ArrayList<>();
    if (!failed) {
      for (AppliedObject o : plan.prune()) {
        ObjectResult.Builder line = ObjectResult.newBuilder().setObject(o).setAction("pruned");
        try {
          Resource<GenericKubernetesResource> res = resource(client, o).withName(o.getName());
          GenericKubernetesResource live = res.get();
          if (live == null) {
            line.setHealth("healthy").setMessage("already gone");
          } else if (!ApplyPlan.owns(
              live.getMetadata().getLabels(), r.getProject(), r.getEnvironment(), o.getTenant())) {
            line.setAction("kept")
                .setHealth("healthy")
                .setMessage("not pruned: it no longer carries this delivery's labels");
          } else {
            res.delete();
            line.setHealth("healthy").setMessage("deleted: the release no longer holds it");
          }
        } catch (KubernetesClientException e) {
          failed = true;
          line.setAction("failed").setHealth("failed").setMessage("prune: " + apiMessage(e));
        }
        prunes.add(line.build());
      }
    } else if (!plan.prune().isEmpty()) {
      results.add(
          ObjectResult.newBuilder()
              .setAction("kept")
              .setHealth("healthy")
              .setMessage(
                  "pruning skipped: "
                      + plan.prune().size()
                      + " objects of earlier releases stay until an apply succeeds")
              .build());
    }

    // Rollout health, until every watched object is healthy or degraded, or the timeout.
    Instant until =
        clock.instant().plusSeconds(Math.clamp(r.getHealthTimeoutSeconds(), 0, MAX_HEALTH_SECONDS));
    Map<ApplyPlan.Planned, RolloutHealth.Verdict> pending = new LinkedHashMap<>();
    for (ApplyPlan.Planned p : applied) {
      if (RolloutHealth.watched(p.object().getApiVersion(), p.object().getKind())) {
        pending.put(p, new RolloutHealth.Verdict(RolloutHealth.State.PROGRESSING, "waiting"));
      }
    }
    while (true) {
      boolean waiting = false;
      for (Map.Entry<ApplyPlan.Planned, RolloutHealth.Verdict> e : pending.entrySet()) {
        if (e.getValue().state() != RolloutHealth.State.PROGRESSING) {
          continue;
        }
        RolloutHealth.Verdict v;
        try {
          GenericKubernetesResource live =
              resource(client, e.getKey().identity())
                  .withName(e.getKey().object().getMetadata().getName())
                  .get();
          v = RolloutHealth.assess(live);
        } catch (KubernetesClientException ex) {
          v = new RolloutHealth.Verdict(RolloutHealth.State.PROGRESSING, apiMessage(ex));
        }
        e.setValue(v);
        waiting |= v.state() == RolloutHealth.State.PROGRESSING;
      }
      if (!waiting || !clock.instant().isBefore(until) || Thread.currentThread().isInterrupted()) {
        break;
      }
      sleep();
    }
    for (Map.Entry<ApplyPlan.Planned, RolloutHealth.Verdict> e : pending.entrySet()) {
      RolloutHealth.Verdict v = e.getValue();
      ObjectResult.Builder line = lines.get(e.getKey());
      line.setHealth(v.state().wire());
      line.setMessage(
          v.state() == RolloutHealth.State.PROGRESSING
              ? "not healthy after " + r.getHealthTimeoutSeconds() + " s: " + v.message()
              : v.message());
      failed |= v.state() != RolloutHealth.State.HEALTHY;
    }
    lines.values().forEach(l -> results.add(l.build()));
    results.addAll(prunes);
    return result(
        r,
        failed ? ApplyResult.Outcome.FAILED : ApplyResult.Outcome.SUCCEEDED,
        results,
        failed ? "some objects failed to apply, prune or become healthy" : "");
  }

  /**
   * The answer to an apply the plan refused objects of: nothing was applied or pruned. Each refused
   * object is listed with the fence's or the ownership check's sentence, the objects that could not
   * be planned with theirs, and one line says what waits.
   */
  private ApplyResult refused(ApplyRelease r, ApplyPlan plan) {
    List<ObjectResult> results = new ArrayList<>(plan.refused());
    results.addAll(plan.failures());
    String why =
        plan.refused().size()
            + (plan.refused().size() == 1 ? " object was" : " objects were")
            + " refused (outside the project's fence, or not managed by GitOpsHQ for this"
            + " project); nothing was applied or pruned";
    results.add(
        ObjectResult.newBuilder()
            .setAction("skipped")
            .setHealth("healthy")
            .setMessage(
                why
                    + "; the release's other objects ("
                    + plan.apply().size()
                    + ") wait until it is fixed")
            .build());
    log.warn("direct apply {}: {}", r.getApplyId(), why);
    return result(r, ApplyResult.Outcome.FAILED, results, why);
  }

  /** The labels of the live object of an identity, for the plan's ownership check. */
  private static Optional<Map<String, String>> liveLabels(
      KubernetesClient client, AppliedObject identity) {
    try {
      GenericKubernetesResource live =
          resource(client, identity).withName(identity.getName()).get();
      if (live == null) {
        return Optional.empty();
      }
      Map<String, String> labels = live.getMetadata().getLabels();
      return Optional.of(labels == null ? Map.of() : labels);
    } catch (KubernetesClientException e) {
      throw new ApplyPlan.Unreadable(apiMessage(e));
    }
  }

  private static NonNamespaceOperation<
          GenericKubernetesResource,
          GenericKubernetesResourceList,
          Resource<GenericKubernetesResource>>
      resource(KubernetesClient client, AppliedObject o) {
    var op = client.genericKubernetesResources(o.getApiVersion(), o.getKind());
    return o.getNamespace().isEmpty() ? op : op.inNamespace(o.getNamespace());
  }

  /** Whether the cluster serves the kind, and namespaced, from discovery (cached per apply). */
  private static Optional<Boolean> namespaced(
      KubernetesClient client,
      Map<String, Map<String, Boolean>> cache,
      String apiVersion,
      String kind) {
    Map<String, Boolean> kinds =
        cache.computeIfAbsent(
            apiVersion,
            gv -> {
              Map<String, Boolean> m = new HashMap<>();
              try {
                APIResourceList list = client.getApiResources(gv);
                if (list != null) {
                  for (APIResource res : list.getResources()) {
                    if (!res.getName().contains("/")) {
                      m.put(res.getKind(), Boolean.TRUE.equals(res.getNamespaced()));
                    }
                  }
                }
              } catch (KubernetesClientException e) {
                // Not served: every kind of it is unknown.
              }
              return m;
            });
    return Optional.ofNullable(kinds.get(kind));
  }

  /** The API server's own message (e.g. RBAC's "forbidden: User … cannot create …"). */
  static String apiMessage(KubernetesClientException e) {
    if (e.getStatus() != null
        && e.getStatus().getMessage() != null
        && !e.getStatus().getMessage().isBlank()) {
      return e.getStatus().getMessage();
    }
    return String.valueOf(e.getMessage());
  }

  private static void sleep() {
    try {
      Thread.sleep(POLL.toMillis());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }

  private ApplyResult result(
      ApplyRelease r, ApplyResult.Outcome outcome, List<ObjectResult> objects, String error) {
    Instant now = clock.instant();
    return ApplyResult.newBuilder()
        .setApplyId(r.getApplyId())
        .setOutcome(outcome)
        .addAllObjects(objects)
        .setError(error == null ? "" : error)
        .setFinishedAt(
            Timestamp.newBuilder().setSeconds(now.getEpochSecond()).setNanos(now.getNano()))
        .build();
  }
}
