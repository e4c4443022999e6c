package dev.gitopshq.cli;

/**
 * Every hub endpoint the CLI calls, in one place. {@code OpenApiContractTest} checks each (method,
 * path) against the hub's committed OpenAPI document, so a renamed route fails the build instead of
 * a user's script.
 */
public enum Endpoint {
  ME("GET", "/api/v2/me"),
  AUTH_CONFIG("GET", "/api/v2/auth/config"),
  AUTH_OIDC_TOKEN("POST", "/api/v2/auth/oidc/token"),
  CLUSTERS_LIST("GET", "/api/v2/clusters"),
  CLUSTERS_CREATE("POST", "/api/v2/clusters"),
  CLUSTERS_GET("GET", "/api/v2/clusters/{id}"),
  CLUSTERS_DELETE("DELETE", "/api/v2/clusters/{id}"),
  CLUSTERS_UPDATE("PATCH", "/api/v2/clusters/{id}"),
  ORGS_LIST("GET", "/api/v2/orgs"),
  ORGS_SET_PLAN("PUT", "/api/v2/orgs/{id}/plan"),
  CLUSTERS_JOIN_TOKEN("POST", "/api/v2/clusters/{id}/join-token"),
  CLUSTERS_ROTATE_TOKEN("POST", "/api/v2/clusters/{id}/rotate-token"),
  CLUSTERS_ACCEPT("POST", "/api/v2/clusters/{id}/accept"),
  CLUSTERS_REJECT("POST", "/api/v2/clusters/{id}/reject"),
  CLUSTERS_ACCEPTANCE_GET("GET", "/api/v2/clusters/acceptance"),
  CLUSTERS_ACCEPTANCE_PUT("PUT", "/api/v2/clusters/acceptance"),
  CLUSTERS_CERTIFICATE_GET("GET", "/api/v2/clusters/{id}/certificate"),
  CLUSTERS_CERTIFICATE_REVOKE("POST", "/api/v2/clusters/{id}/certificate/revoke"),
  AGENT_CA_GET("GET", "/api/v2/agent-ca"),
  AGENT_CA_PUT("PUT", "/api/v2/agent-ca"),
  COMMANDS_CREATE("POST", "/api/v2/clusters/{clusterId}/commands"),
  COMMANDS_LIST("GET", "/api/v2/clusters/{clusterId}/commands"),
  COMMANDS_GET("GET", "/api/v2/commands/{id}"),
  COMMANDS_CANCEL("POST", "/api/v2/commands/{id}/cancel"),
  APPROVALS_LIST("GET", "/api/v2/approvals"),
  APPROVALS_APPROVE("POST", "/api/v2/approvals/{id}/approve"),
  APPROVALS_REJECT("POST", "/api/v2/approvals/{id}/reject"),
  APPROVAL_POLICIES_LIST("GET", "/api/v2/approval-policies"),
  APPROVAL_POLICIES_CREATE("POST", "/api/v2/approval-policies"),
  APPROVAL_POLICIES_GET("GET", "/api/v2/approval-policies/{name}"),
  APPROVAL_POLICIES_UPDATE("PUT", "/api/v2/approval-policies/{name}"),
  APPROVAL_POLICIES_DELETE("DELETE", "/api/v2/approval-policies/{name}"),
  TEAMS_LIST("GET", "/api/v2/teams"),
  TEAMS_CREATE("POST", "/api/v2/teams"),
  TEAMS_GET("GET", "/api/v2/teams/{id}"),
  TEAMS_DELETE("DELETE", "/api/v2/teams/{id}"),
  TEAMS_ADD_MEMBER("POST", "/api/v2/teams/{id}/members"),
  TEAMS_REMOVE_MEMBER("DELETE", "/api/v2/teams/{id}/members/{memberId}"),
  GRANTS_LIST("GET", "/api/v2/grants"),
  GRANTS_CREATE("POST", "/api/v2/grants"),
  GRANTS_DELETE("DELETE", "/api/v2/grants/{id}"),
  MEMBERS_LIST("GET", "/api/v2/members"),
  POLICIES_LIST("GET", "/api/v2/policies"),
  POLICIES_GET("GET", "/api/v2/policies/{name}"),
  POLICIES_PUT("PUT", "/api/v2/policies/{name}"),
  POLICIES_VERSION("GET", "/api/v2/policies/{name}/versions/{version}"),
  POLICIES_EVALUATE("POST", "/api/v2/policies/{name}/evaluate"),
  POLICIES_WHAT_IF("POST", "/api/v2/policies/{name}/what-if"),
  PROJECTS_LIST("GET", "/api/v2/projects"),
  PROJECTS_GET("GET", "/api/v2/projects/{id}"),
  RELEASES_CREATE("POST", "/api/v2/projects/{projectId}/releases"),
  RELEASES_LIST("GET", "/api/v2/projects/{projectId}/releases"),
  RELEASES_GET("GET", "/api/v2/projects/{projectId}/releases/{number}"),
  RELEASES_PROMOTE("POST", "/api/v2/projects/{projectId}/releases/{number}/promote"),
  DEPLOYMENTS_GET("GET", "/api/v2/projects/{projectId}/deployments/{deploymentId}"),
  ROLLBACKS_CREATE("POST", "/api/v2/projects/{projectId}/rollbacks"),
  FREEZE_WINDOWS_LIST("GET", "/api/v2/freeze-windows"),
  FREEZE_WINDOWS_CREATE("POST", "/api/v2/freeze-windows"),
  FREEZE_WINDOWS_DELETE("DELETE", "/api/v2/freeze-windows/{id}"),
  AUDIT_LIST("GET", "/api/v2/audit"),
  AUDIT_VERIFY("GET", "/api/v2/audit/verify"),
  WORKFLOW_HISTORY("GET", "/api/v2/workflows/{workflowId}/history"),
  COMMAND_EVIDENCE("GET", "/api/v2/commands/{id}/evidence"),
  RELEASE_EVIDENCE("GET", "/api/v2/projects/{projectId}/releases/{number}/evidence"),
  EVIDENCE_KEYS("GET", "/api/v2/evidence/keys"),
  PROJECT_ENVIRONMENTS_LIST("GET", "/api/v2/projects/{projectId}/environments"),
  PROJECT_ENVIRONMENTS_PUT("PUT", "/api/v2/projects/{projectId}/environments/{env}"),
  CLUSTERS_SELECTOR_PREVIEW("POST", "/api/v2/clusters/selector-preview"),
  PROJECT_FENCE_GET("GET", "/api/v2/projects/{projectId}/fence"),
  PROJECT_FENCE_PUT("PUT", "/api/v2/projects/{projectId}/fence"),
  CLUSTERS_DIRECT_DEPLOYS("GET", "/api/v2/clusters/{id}/direct-deploys"),
  CLUSTERS_ADAPTERS_GET("GET", "/api/v2/clusters/{id}/adapters"),
  CLUSTERS_ADAPTERS_PUT("PUT", "/api/v2/clusters/{id}/adapters"),
  CLUSTERS_ADAPTERS_REWIRE("POST", "/api/v2/clusters/{id}/adapters/rewire"),
  DRIFT_LIST("GET", "/api/v2/clusters/{clusterId}/drift"),
  DRIFT_GET("GET", "/api/v2/clusters/{clusterId}/drift/{findingId}"),
  DRIFT_CHECK("POST", "/api/v2/clusters/{clusterId}/drift/checks"),
  DRIFT_CHECK_GET("GET", "/api/v2/clusters/{clusterId}/drift/checks/{checkId}"),
  DRIFT_RESOLVE("POST", "/api/v2/clusters/{clusterId}/drift/{findingId}/resolve"),
  CREDENTIALS_LIST("GET", "/api/v2/credentials"),
  CREDENTIALS_CREATE("POST", "/api/v2/credentials"),
  CREDENTIALS_GET("GET", "/api/v2/credentials/{id}"),
  CREDENTIALS_UPDATE("PATCH", "/api/v2/credentials/{id}"),
  CREDENTIALS_DELETE("DELETE", "/api/v2/credentials/{id}"),
  CREDENTIALS_ASSIGN("PUT", "/api/v2/credentials/{id}/assignments"),
  CLUSTER_CREDENTIALS("GET", "/api/v2/clusters/{id}/credentials"),
  CLUSTERS_LOGS("GET", "/api/v2/clusters/{id}/logs");

  private final String method;
  private final String path;

  Endpoint(String method, String path) {
    this.method = method;
    this.path = path;
  }

  public String method() {
    return method;
  }

  /** The path template, with {@code {name}} placeholders as in the OpenAPI document. */
  public String path() {
    return path;
  }
}
