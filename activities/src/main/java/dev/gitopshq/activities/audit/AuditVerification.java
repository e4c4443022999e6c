package dev.gitopshq.activities.audit;

/**
 * The result of recomputing an organization's audit chain.
 *
 * @param valid true when every entry's hash and link are intact
 * @param entriesChecked how many entries were recomputed
 * @param firstBrokenSeq the first entry whose link or hash does not match, or null
 * @param reason what is wrong with it, or null
 */
public record AuditVerification(
    boolean valid, long entriesChecked, Long firstBrokenSeq, String reason) {}
