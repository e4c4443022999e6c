package dev.gitopshq.activities.identity;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * Who a valid API token speaks for.
 *
 * @param tokenId the token's id
 * @param orgId the organization the caller acts in
 * @param memberId the member, for personal tokens
 * @param serviceAccountId the service account, for service-account tokens
 * @param name the member's email or the service account's name
 * @param role the member's role; null for service accounts
 * @param scopes the token's scopes (service accounts: what it may do)
 * @param operatorOrg whether the organization is the operator organization
 * @param expiresAt when the token or session stops being valid; null for a token without expiry
 */
public record TokenPrincipal(
    UUID tokenId,
    UUID orgId,
    UUID memberId,
    UUID serviceAccountId,
    String name,
    String role,
    List<String> scopes,
    boolean operatorOrg,
    Instant expiresAt) {}
