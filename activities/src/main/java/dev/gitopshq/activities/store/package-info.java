/**
 * What every store of the hub shares: the MyBatis type handlers that map UUID, {@code timestamptz},
 * {@code text[]} and {@code jsonb}. The mappers live beside their feature ({@code cluster}, {@code
 * identity}, {@code org}, {@code command}, …), SQL in annotations beside each method. Every
 * statement on organization-owned rows filters by {@code org_id}; the only exceptions are the two
 * token lookups that establish which organization a caller belongs to.
 */
package dev.gitopshq.activities.store;
