/**
 * The hosted Git repositories: one bare repository per project (JGit), written only by the hub
 * through compare-and-set commits, read by the delivery steps and served read-only over smart HTTP.
 */
package dev.gitopshq.activities.git;
