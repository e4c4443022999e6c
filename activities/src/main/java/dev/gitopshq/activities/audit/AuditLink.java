package dev.gitopshq.activities.audit;

/** One link of the chain: an entry's number, the hash it links to and its own hash. */
public record AuditLink(long seq, String prevHash, String hash) {}
