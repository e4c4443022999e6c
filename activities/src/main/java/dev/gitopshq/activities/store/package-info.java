/**
 * The hub's PostgreSQL store: one MyBatis mapper per aggregate, SQL in annotations beside the
 * method, row records, and the type handlers that map UUID, {@code timestamptz}, {@code text[]} and
 * {@code jsonb}. Every statement on organization-owned rows filters by {@code org_id}; the only
 * exceptions are the two token lookups that establish which organization a caller belongs to.
 */
package dev.gitopshq.activities.store;
