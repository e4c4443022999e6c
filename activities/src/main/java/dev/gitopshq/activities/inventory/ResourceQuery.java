package dev.gitopshq.activities.inventory;

import java.util.Map;

/**
 * A page of a cluster's resources, ordered by namespace, kind, name and uid.
 *
 * @param namespace only this namespace (null: all; empty: cluster-scoped objects)
 * @param kind only this kind (null: all)
 * @param labels objects whose labels contain every pair (empty: all)
 * @param labelKey objects that have this label, whatever its value (null: all)
 * @param q a case-insensitive part of the name (null: all)
 * @param after the sort key of the last row of the previous page (null: the first page)
 * @param limit rows to return
 */
public record ResourceQuery(
    String namespace,
    String kind,
    Map<String, String> labels,
    String labelKey,
    String q,
    Cursor after,
    int limit) {
  /** Where a page ends. */
  public record Cursor(String namespace, String kind, String name, String uid) {}
}
