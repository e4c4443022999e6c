/** Activities of the agent watch workflow: is the agent still away, and the notification. */
package dev.gitopshq.activities.agentwatch;
