/**
 * Teams and grants (docs/policies.md#teams-and-grants): {@code /api/v2/teams} and {@code
 * /api/v2/grants}, and {@link dev.gitopshq.hub.team.Access}, which decides what project or cluster
 * a member reaches. {@link dev.gitopshq.hub.team.GrantInterceptor} applies it to every endpoint
 * under {@code /api/v2/projects/{id}} and {@code /api/v2/clusters/{id}}: without a grant the object
 * answers 404, with one the caller's project or cluster permissions become the grant's. The
 * endpoints outside those paths that show a project's or cluster's objects (lists, the selector
 * preview, freeze windows, approval policies' governed clusters, the approvals inbox, the log
 * WebSocket, hosted Git) ask {@link dev.gitopshq.hub.team.Access} themselves
 * (docs/security.md#what-grants-filter).
 */
package dev.gitopshq.hub.team;
