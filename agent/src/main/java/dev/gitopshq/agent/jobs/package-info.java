/**
 * The agent's one job runner: every request the hub sends for an answer (a command, a direct apply,
 * a credential sync or prune, adapter wiring, a reconcile request, a drift check, a live read, a
 * token rotation) is a {@link dev.gitopshq.agent.jobs.JobKind} with a handler that holds its domain
 * logic only. The {@link dev.gitopshq.agent.jobs.JobRunner} owns what they share: each job id at
 * most once (a repeat answered with the first outcome, from a bounded memory), the worker threads
 * of each kind's {@link dev.gitopshq.agent.jobs.Lane} (one at a time, or a few with a short queue
 * and a "busy" answer), the deadline after which a job does not start, the capability check, and
 * the answer sent back with the request's id as the correlation id. The table of kinds is {@code
 * dev.gitopshq.agent.HubRequests}. This package never touches the Kubernetes client.
 */
package dev.gitopshq.agent.jobs;
