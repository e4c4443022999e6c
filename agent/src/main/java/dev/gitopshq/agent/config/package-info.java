/** The agent's configuration, read from {@code GITOPSHQ_*} environment variables. */
package dev.gitopshq.agent.config;
