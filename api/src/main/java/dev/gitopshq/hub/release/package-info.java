/**
 * Releases, promotions, rollbacks and deliveries over REST: controllers start the deployment
 * workflows and read their state; the activities write the deploy branches.
 */
package dev.gitopshq.hub.release;
