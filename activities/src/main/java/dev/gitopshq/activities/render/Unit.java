package dev.gitopshq.activities.render;

import com.fasterxml.jackson.annotation.JsonCreator;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Fence;
import dev.gitopshq.activities.delivery.ProjectSnapshot.Overlay;
import java.util.List;
import java.util.Map;

/**
 * One thing the delivery generator renders into one directory of the repository, with every input
 * already resolved (stored as JSON in {@code generation_units.input}, never in workflow history).
 * Every component is part of the unit's {@link UnitFingerprint}, so an input added here is covered
 * by incremental generation without further work; anything else the renderer starts to read must be
 * added here (or change {@link Renderer#OUTPUT_VERSION}).
 *
 * @param path the directory in the repository, e.g. {@code rendered/production/eu-1/acme/web}, or
 *     {@code rendered/production/_bases/redis} for a Kustomize base
 * @param kind {@link #HELM}, {@link #MANIFESTS}, {@link #KUSTOMIZE} or {@link #KUSTOMIZE_BASE}
 * @param service the workload or binding name; empty for a base
 * @param namespace the target namespace from the environment's pattern; empty for a base
 * @param values the merged, substituted Helm values (helm units)
 * @param files the bundle's or base's files (manifests and kustomize-base units)
 * @param overlays JSON merge patches (manifests and kustomize units)
 * @param basePath the base directory relative to {@code path} (kustomize units)
 * @param variables the merged HQ variables the unit saw, for the record
 * @param fence the project's fence: every object the unit renders must pass it
 * @param kindScopes the scope ({@code Namespaced} or {@code Cluster}) the workload or binding
 *     declares for kinds the hub does not know, by {@code group/Kind}
 */
public record Unit(
    String path,
    String kind,
    String environment,
    String cluster,
    String tenant,
    String service,
    String namespace,
    String chart,
    String chartVersion,
    String chartDigest,
    Map<String, Object> values,
    Map<String, String> files,
    List<Overlay> overlays,
    String basePath,
    Map<String, String> variables,
    Fence fence,
    Map<String, String> kindScopes) {
  public static final String HELM = "helm";
  public static final String MANIFESTS = "manifests";
  public static final String KUSTOMIZE = "kustomize";
  public static final String KUSTOMIZE_BASE = "kustomize-base";

  /** The Namespace object of the unit's namespace (an environment with createNamespace). */
  public static final String NAMESPACE = "namespace";

  /** Units stored before fences had none: they get the default fence. */
  @JsonCreator
  public Unit {
    fence = fence == null ? Fence.DEFAULT : fence;
    kindScopes = kindScopes == null ? Map.of() : kindScopes;
  }

  /** A unit under the default fence that declares no kind scopes. */
  public Unit(
      String path,
      String kind,
      String environment,
      String cluster,
      String tenant,
      String service,
      String namespace,
      String chart,
      String chartVersion,
      String chartDigest,
      Map<String, Object> values,
      Map<String, String> files,
      List<Overlay> overlays,
      String basePath,
      Map<String, String> variables) {
    this(
        path,
        kind,
        environment,
        cluster,
        tenant,
        service,
        namespace,
        chart,
        chartVersion,
        chartDigest,
        values,
        files,
        overlays,
        basePath,
        variables,
        Fence.DEFAULT,
        Map.of());
  }
}
