/**
 * Making it so: the commands that change cluster objects ({@link
 * dev.gitopshq.agent.kube.KubeCommands}: plan with {@code model}, patch with optimistic
 * concurrency) and the writer of synced credentials' Secrets.
 *
 * <p>The Kubernetes client (Fabric8's {@code io.fabric8.kubernetes.client}) is used in these
 * packages only, each for its own capability; the build's architecture test ({@code
 * ArchitectureTest.theKubernetesClientOnlyInNamedPackages}) fails on any other:
 *
 * <ul>
 *   <li>{@code dev.gitopshq.agent} (the package itself, not its sub-packages): {@code Agent} builds
 *       the client ({@code LazyKube}, on first use) and, with {@code HubRequests}, hands a supplier
 *       of it to the parts below;
 *   <li>{@code kube}: this package, the commands that change objects and the credential writer;
 *   <li>{@code adapters}: wiring a GitOps adapter (Argo CD, Flux) and asking it to reconcile;
 *   <li>{@code credentials}: reads the API's error code when a credential write in {@code kube}
 *       fails;
 *   <li>{@code deploy}: direct deploy's server-side apply, prune and rollout judgement;
 *   <li>{@code drift}: reading live objects and the server-side-apply dry runs;
 *   <li>{@code identity}: the identity kept in a Secret;
 *   <li>{@code inspect}: one object's YAML, events and related resources;
 *   <li>{@code inventory}: the shared informers;
 *   <li>{@code logs}: Fabric8's log watch.
 * </ul>
 *
 * <p>{@code model} computes objects without a client, and every other package ({@code commands},
 * {@code config}, {@code jobs}, {@code link}, {@code metrics}, {@code proxy}) reaches the cluster
 * only through the packages above.
 */
package dev.gitopshq.agent.kube;
