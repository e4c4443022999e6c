package dev.gitopshq.activities.delivery;

/** A chart version's archive bytes with their SHA-256. */
public record ChartArchiveRow(String digest, byte[] archive) {}
