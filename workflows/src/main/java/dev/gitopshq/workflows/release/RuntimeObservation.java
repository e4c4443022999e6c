package dev.gitopshq.workflows.release;

/**
 * What a cluster's runtime adapter reported last while the hub waited for it to run a deployment.
 *
 * @param verified the adapter runs the deployment's commit and reports it healthy
 * @param deliverer the Flux Kustomization ({@code flux:<namespace>/<name>}) or Argo CD Application
 *     ({@code <namespace>/<name>}) that delivers it; empty when none was found
 * @param revision the commit the adapter last applied; empty when unknown
 * @param health what the adapter says of it: Flux's Ready condition, Argo CD's sync and health
 * @param reason for people: why it is not verified (empty when it is)
 * @param observedAtMillis when the hub read it (epoch milliseconds)
 */
public record RuntimeObservation(
    boolean verified,
    String deliverer,
    String revision,
    String health,
    String reason,
    long observedAtMillis) {}
