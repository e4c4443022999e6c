/**
 * The hub jar's {@code migrate-git-storage} mode: copies the hosted repositories from the file
 * storage into PostgreSQL and verifies each copy (docs/operations.md, "Moving the Git repositories
 * into PostgreSQL").
 */
package dev.gitopshq.hub.git.migration;
