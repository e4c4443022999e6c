package dev.gitopshq.workflows.generation;

import io.temporal.activity.ActivityInterface;

/** The steps of a delivery generation. Each reads and writes PostgreSQL and the repository. */
@ActivityInterface
public interface GenerationActivities {
  /**
   * Resolves the project at the request's revision into units with their merged inputs and stores
   * them, batched, under a new generation. Idempotent: a retry finds the stored plan. Returns a
   * plan with a null id when a newer revision has already been generated.
   */
  GenerationPlan plan(GenerationRequest request);

  /**
   * Renders one batch (Helm charts in-process, bundles with their overlays, Kustomize bindings as
   * kustomization files) into fresh directories, writes each unit's files into the repository's
   * object store and records the unit's tree. A unit whose chart fails to render fails the activity
   * with a non-retryable {@code RenderFailed} naming the unit.
   *
   * @return how many units were rendered
   */
  int render(String orgId, String generationId, int batch);

  /**
   * Assembles the rendered trees and commits them on main when they differ from what main holds
   * (compare-and-set on the branch; a newer generation that already committed wins). Records the
   * generation's outcome and, per tenant-environment whose output changed, the commit.
   */
  GenerationResult commit(String orgId, String generationId);

  /** Records that the generation failed (nothing was committed) and why. */
  GenerationResult fail(String orgId, String generationId, String reason);
}
