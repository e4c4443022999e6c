/**
 * The agent's HTTP CONNECT proxy to the hub: {@code HTTPS_PROXY}, {@code HTTP_PROXY} and {@code
 * NO_PROXY} as Go programs read them, and gRPC's proxy detector. Depends on nothing else in the
 * agent.
 */
package dev.gitopshq.agent.proxy;
