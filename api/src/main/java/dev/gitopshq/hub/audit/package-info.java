/** {@code /api/v2/audit}: read the hash-chained audit log and verify its chain. */
package dev.gitopshq.hub.audit;
