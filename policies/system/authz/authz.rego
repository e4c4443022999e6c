# METADATA
# description: |
#   OPA's own authorization policy (opa run --authorization=basic): only the hub, holding the
#   token whose SHA-256 the launcher wrote to data.gitopshq_opa.token_sha256, may use OPA's API;
#   the health check stays open for probes. Unknown or missing tokens get 401.
package system.authz

default allow := false

allow if input.path == ["health"]

allow if crypto.sha256(input.identity) == data.gitopshq_opa.token_sha256
