/**
 * Drift findings: which objects deployments delivered to a cluster ({@link DesiredState}), the
 * checks that compare them with the live objects, and the findings with their history ({@link
 * DriftStore}).
 */
package dev.gitopshq.activities.drift;
