package dev.gitopshq.hub.team;

import java.util.UUID;

/**
 * Published when what members of an organization reach may have narrowed: a grant revoked, a team
 * deleted, a member taken out of a team or given another role. Listeners that act on it should run
 * after the change commits ({@code @TransactionalEventListener}); it reaches this replica only, so
 * what other replicas hold must also be checked on a timer.
 */
public record AccessChanged(UUID orgId) {}
