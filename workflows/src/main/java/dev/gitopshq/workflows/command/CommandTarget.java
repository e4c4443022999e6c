package dev.gitopshq.workflows.command;

/** The object a command acts on: a Deployment or an Argo CD Application. */
public record CommandTarget(String namespace, String kind, String name) {}
