/**
 * Delivery generation: renders what every tenant in every environment of a project should run and
 * commits it to the project's hosted repository, one commit per delivery.
 *
 * <p>A configuration change bumps the project's revision and starts {@link
 * DeliveryGenerationWorkflow} with id {@code delivery-{projectId}-r{revision}}. The workflow plans
 * the units (workload x tenant x environment x cluster, plus Kustomize and manifest bindings) into
 * PostgreSQL (a unit whose input fingerprint is unchanged keeps its earlier tree and is not
 * batched), renders the rest in parallel batches whose output goes straight into the repository's
 * object store, and commits the assembled tree when it differs from what {@code main} holds. Only
 * ids and counts travel through the history: never values, never manifests.
 */
package dev.gitopshq.workflows.generation;
