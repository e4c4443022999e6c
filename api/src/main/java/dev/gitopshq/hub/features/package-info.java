/**
 * Plans and feature gates: {@code /api/v2/features} reports the caller's organization's plan and
 * gates, and {@link dev.gitopshq.hub.features.PlanGuard} refuses a request that uses a gate the
 * plan does not open.
 */
package dev.gitopshq.hub.features;
