/** Organizations: the isolation boundary every other row carries as {@code org_id}. */
package dev.gitopshq.activities.org;
