/** {@code /api/v2/features}: the effective plan, feature gates and limits. */
package dev.gitopshq.hub.features;
