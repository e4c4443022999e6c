/**
 * Commands on clusters, store side: the command rows and timelines, the command workflow's
 * activities (transitions, capability check, OPA decision, notifications) and the dispatch activity
 * that hands commands to the agent gateway.
 */
package dev.gitopshq.activities.command;
