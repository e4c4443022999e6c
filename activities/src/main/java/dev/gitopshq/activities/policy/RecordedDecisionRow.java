package dev.gitopshq.activities.policy;

import java.time.Instant;
import java.util.List;
import java.util.UUID;

/**
 * A decision a policy took for a governed subject, as recorded with the subject.
 *
 * @param kind {@code command} or {@code deployment}
 * @param subjectId the command's or deployment's id
 * @param at when it was decided (its creation time for decisions recorded before V52)
 * @param policyVersion the version that decided
 * @param outcome the recorded outcome's wire name
 * @param reasons the recorded reasons
 * @param input the input document's JSON text, or null when it was not recorded
 */
public record RecordedDecisionRow(
    String kind,
    UUID subjectId,
    Instant at,
    Integer policyVersion,
    String outcome,
    List<String> reasons,
    String input) {}
