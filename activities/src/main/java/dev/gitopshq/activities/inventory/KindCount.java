package dev.gitopshq.activities.inventory;

/** How many objects of a kind a namespace holds ({@code namespace} empty: cluster-scoped). */
public record KindCount(String namespace, String kind, long count) {}
