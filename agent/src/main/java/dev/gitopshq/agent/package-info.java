/**
 * The GitOpsHQ cluster agent: a plain Java process that dials out to the hub over gRPC.
 *
 * <p>{@link dev.gitopshq.agent.AgentMain} is the process entry point and {@link
 * dev.gitopshq.agent.Agent} the programmatic one, which puts the agent together: {@code
 * AgentLifecycle} (load the identity, register if there is none, run the link; the exit code),
 * {@code HubRequests} (the one dispatch table from each hub message to its handler, and the job
 * runner of {@code jobs} that answers the requests), the inventory feed and the metrics endpoint.
 * Sub-packages: {@code config} (environment variables), {@code identity} (where the cluster id and
 * agent token are kept), {@code link} (Register, the Connect stream, heartbeats and reconnects),
 * {@code jobs} (the job runner) and one package per kind of work ({@code commands}, {@code deploy},
 * {@code credentials}, {@code adapters}, {@code drift}, {@code inspect}, {@code inventory}, {@code
 * logs}).
 */
package dev.gitopshq.agent;
