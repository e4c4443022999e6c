/**
 * Drift: {@link DriftDiff} compares a desired object with the live one (pure, no client); {@link
 * DriftChecker} reads the live objects, runs the server-side-apply dry runs, and re-applies a
 * desired object for the resolve-drift command.
 */
package dev.gitopshq.agent.drift;
