package dev.gitopshq.agent.config;

/** Where the agent keeps its identity (cluster id and agent token) between restarts. */
public enum IdentityStoreMode {
  /** A JSON file at {@code GITOPSHQ_AGENT_TOKEN_PATH}. */
  FILE,
  /** A Kubernetes Secret, {@code GITOPSHQ_IDENTITY_SECRET_NAME} in its namespace. */
  SECRET
}
