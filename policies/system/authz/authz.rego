# METADATA
# description: |
#   OPA's own authorization policy (opa run --authorization=basic): only the hub, holding the
#   token whose SHA-256 the launcher wrote to data.gitopshq_opa.token_sha256, may use OPA's API,
#   and only for the calls the hub makes (docs/security.md, "The policy engine"): list and read
#   policies, upload one under an id the hub manages (orgs/<org id>/gitopshq/<name>, or a
#   what-if's whatif/<millis>/<token>/gitopshq/<name>), remove a module (the hub removes every
#   module it does not manage, whatever its id), ask for a decision of an organization's policy or
#   a what-if's draft, and write an organization's freeze windows. Every other call, above all a
#   write of any other data document (which would change what decisions read, or the token this
#   policy admits), is refused with 401 like a wrong token. The health check stays open for probes.
package system.authz

default allow := false

allow if input.path == ["health"]

allow if {
	crypto.sha256(input.identity) == data.gitopshq_opa.token_sha256
	hub_call
}

# The policy listing, which the hub reads before decisions.
hub_call if {
	input.method == "GET"
	input.path == ["v1", "policies"]
}

# One policy's text, read back by the republisher.
hub_call if {
	input.method == "GET"
	managed_policy_id(policy_id)
}

hub_call if {
	input.method == "PUT"
	managed_policy_id(policy_id)
}

hub_call if {
	input.method == "PUT"
	what_if_policy_id(policy_id)
}

# Removals: the hub removes what-if drafts, policies deleted, and any module it does not manage.
hub_call if {
	input.method == "DELETE"
	count(policy_id) > 0
}

# Decisions: an organization's policy, or a what-if's draft. POST on /v1/data only evaluates.
hub_call if {
	input.method == "POST"
	count(input.path) > 4
	array.slice(input.path, 0, 2) == ["v1", "data"]
	org_root(input.path[2])
	input.path[3] == "gitopshq"
}

hub_call if {
	input.method == "POST"
	count(input.path) > 5
	array.slice(input.path, 0, 2) == ["v1", "data"]
	regex.match(`^gitopshq_whatif_[0-9a-f]{32}$`, input.path[2])
	org_root(input.path[3])
	input.path[4] == "gitopshq"
}

# The one data document the hub writes: an organization's freeze windows (FreezeService).
hub_call if {
	input.method == "PUT"
	count(input.path) == 5
	array.slice(input.path, 0, 2) == ["v1", "data"]
	org_root(input.path[2])
	array.slice(input.path, 3, 5) == ["gitopshq_data", "freeze_windows"]
}

# The id of /v1/policies/<id>, split at its slashes as OPA hands the path to this policy.
policy_id := array.slice(input.path, 2, count(input.path)) if {
	array.slice(input.path, 0, 2) == ["v1", "policies"]
}

managed_policy_id(id) if {
	count(id) == 4
	id[0] == "orgs"
	regex.match(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`, id[1])
	id[2] == "gitopshq"
	policy_name(id[3])
}

what_if_policy_id(id) if {
	count(id) == 5
	id[0] == "whatif"
	regex.match(`^[0-9]{1,15}$`, id[1])
	regex.match(`^[0-9a-f]{32}$`, id[2])
	id[3] == "gitopshq"
	policy_name(id[4])
}

policy_name(name) if regex.match(`^[a-z0-9]([-a-z0-9]{0,61}[a-z0-9])?$`, name)

org_root(segment) if regex.match(`^org_[0-9a-f]{32}$`, segment)
