package dev.gitopshq.workflows.rotation;

/** The agent's answer, signalled by the gateway. */
public record TokenAck(String rotationId, boolean persisted, String error) {}
