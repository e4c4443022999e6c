/**
 * Live inspection of one object for the hub (capability {@code observe}; events also need {@code
 * diagnostics.read}): its YAML with a Secret's values redacted, its events, and the resources
 * related to it.
 */
package dev.gitopshq.agent.inspect;
