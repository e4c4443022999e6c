package dev.gitopshq.activities.policy;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What one evaluation of a policy package gave: its {@code decision} document, exactly as OPA
 * returned it, and the version that produced it (read from the same evaluation).
 *
 * @param policyName e.g. {@code approval}
 * @param policyVersion the value of {@code gitopshq_policy_version} in the evaluated package
 * @param policySha256 the value of {@code gitopshq_policy_sha256}: the SHA-256 of the version's
 *     text, read from the same evaluation
 * @param decision the package's {@code decision} document
 */
public record PolicyEvaluation(
    String policyName, int policyVersion, String policySha256, JsonNode decision) {}
