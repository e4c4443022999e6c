/**
 * The agent gateway: {@code agent.v1.AgentHub} over gRPC on the agent port, with the standard
 * health service (no server reflection). Split along what travels on an agent's stream:
 *
 * <ul>
 *   <li>the stream and its session ({@code AgentHubService}, {@code AgentConnections}, {@code
 *       AgentSession}): tokens authenticated by hash, registration tokens consumed atomically, one
 *       {@code Connect} stream per agent, heartbeats batched, every payload dispatched through one
 *       table of handlers after Hello;
 *   <li>the one pipeline of jobs for agents ({@code JobDispatcher}, {@code JobKind}, {@code
 *       JobHandOver}): work parked in {@code agent_jobs}, sent by the replica holding the stream,
 *       its answer recorded once and handed to Temporal; one small handler per kind ({@code
 *       CommandJobs}, {@code DirectApplyJobs}); Requests whose caller waits for the answer on any
 *       replica (adapter wiring, reconcile requests, drift checks) are jobs read back by their
 *       caller ({@code ParkedRequests});
 *   <li>the request/response correlation on one stream ({@code StreamExchanges}): live reads and
 *       log sessions, whose caller waits on the replica holding the stream; {@code LiveRequests}
 *       serves them from a stream held here or hands them to the replica holding it ({@code
 *       StreamForwarder});
 *   <li>other replicas' commits that concern a stream held here ({@code AgentNotifications},
 *       PostgreSQL channel {@code gitopshq_agents}): queued jobs sent, revoked tokens' and
 *       certificates' streams closed at once rather than on the next sweep.
 * </ul>
 */
package dev.gitopshq.hub.gateway;
