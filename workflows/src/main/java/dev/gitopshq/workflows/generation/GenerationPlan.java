package dev.gitopshq.workflows.generation;

/**
 * What the plan step stored: the generation's id and how its units were batched.
 *
 * @param generationId the generations row; null when the revision was superseded by a newer one
 *     (nothing to do)
 * @param units how many units were planned
 * @param batches how many render batches they fill (0 when there are no units)
 */
public record GenerationPlan(String generationId, int units, int batches) {}
