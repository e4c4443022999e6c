# METADATA
# title: GitOpsHQ command approval
# description: |
#   Decides whether a cluster command (sync, refresh, rollback, restart, scale,
#   resolve-drift) runs at
#   once, waits for approvers, runs at once as break-glass, or is refused.
#   The hub evaluates data.gitopshq.approval and reads the `decision` rule and
#   the `gitopshq_policy_version` rule it appends when publishing.
#
#   Input document:
#     command   {id, type: "sync"|"refresh"|"rollback"|"restart"|"scale"|"resolve-drift",
#                target: {namespace, kind, name}, params: {...}, reason,
#                break_glass: {requested: bool, justification: string}}
#     cluster   {id, name, environment, labels: {...}, capabilities: [...]}
#     requester {id, type: "member"|"service_account", name,
#                role: "owner"|"admin"|"member"|"viewer"|"", teams: [...]}
#     settings  the cluster's bound approval-policy settings, or null:
#               {require_approval: [types], auto_approve: [types],
#                required_approvers: int >= 1, approver_roles: [roles],
#                approver_teams: [teams],
#                break_glass: {allowed: bool, roles: [roles]}}
#     time      RFC 3339 string
#
#   Decision document:
#     {outcome: "auto_approve"|"require_approval"|"deny"|"break_glass",
#      required_approvers: int, approver_roles: [...], approver_teams: [...],
#      reasons: [sentences a person can read]}
#
#   The rule name gitopshq_policy_version is reserved: the hub appends
#   `gitopshq_policy_version := <N>` to every version it publishes.
#
#   docs/policies.md in the GitOpsHQ repository is the authoring guide.
# scope: package
package gitopshq.approval

# The command types the agent can execute; anything else is refused. They are
# declared in proto/src/main/proto/agent/v1/command_types.proto: a test
# (decision_test.rego, fed docs/command-types.json by tools/policy-test.sh)
# fails when this set or the default lists below disagree with it.
command_types := {"sync", "refresh", "rollback", "restart", "scale", "resolve-drift"}

# Roles a member can hold that may run commands at all.
operating_roles := {"owner", "admin", "member"}

default_approver_roles := ["admin", "owner"]

default_break_glass_roles := ["admin", "owner"]

# A justification shorter than this (after trimming) is not a justification.
min_justification_length := 20

# Default lists when no approval policy is bound to the cluster. Production
# clusters gate everything but sync and refresh (Git stays the source of truth, so a
# sync only converges on what was already reviewed, and a refresh changes nothing in
# the cluster); other clusters gate rollback,
# which moves a cluster away from its reviewed state. resolve-drift re-applies what Git
# holds, like a sync.
production_defaults := {
	"require_approval": ["rollback", "scale", "restart"],
	"auto_approve": ["sync", "refresh", "resolve-drift"],
}

non_production_defaults := {
	"require_approval": ["rollback"],
	"auto_approve": ["sync", "refresh", "restart", "scale", "resolve-drift"],
}

# METADATA
# title: decision
# description: The approval decision for input.command; see the package description.
# entrypoint: true
decision := {
	"outcome": outcome,
	"required_approvers": required_approvers,
	"approver_roles": approver_roles,
	"approver_teams": approver_teams,
	"reasons": reasons,
}

# ---- facts about the input ----------------------------------------------------

command_type := t if {
	t := input.command.type
	is_string(t)
} else := ""

cluster_name := n if {
	n := input.cluster.name
	is_string(n)
	n != ""
} else := n if {
	n := input.cluster.id
	is_string(n)
	n != ""
} else := "(unnamed)"

requester_role := r if {
	r := input.requester.role
	is_string(r)
} else := ""

requester_label := n if {
	n := input.requester.name
	is_string(n)
	n != ""
} else := n if {
	n := input.requester.id
	is_string(n)
	n != ""
} else := "(unknown)"

requester_has_id if {
	is_string(input.requester.id)
	input.requester.id != ""
}

requester_known if {
	requester_has_id
	input.requester.type == "member"
	requester_role in operating_roles
}

requester_known if {
	requester_has_id
	input.requester.type == "service_account"
}

# A cluster is production when its environment says so or its tier label does.
production if input.cluster.environment == "production"

production if input.cluster.labels.tier == "production"

# What the reasons say about the cluster, e.g. "tier:production".
cluster_descriptor := "tier:production" if {
	input.cluster.labels.tier == "production"
} else := "environment:production" if {
	input.cluster.environment == "production"
} else := sprintf("tier:%s", [t]) if {
	t := input.cluster.labels.tier
	is_string(t)
	t != ""
} else := sprintf("environment:%s", [e]) if {
	e := input.cluster.environment
	is_string(e)
	e != ""
} else := "no environment or tier label"

# ---- effective settings --------------------------------------------------------

# The bound settings; undefined when the cluster has none (input.settings is
# null or absent).
settings := s if {
	s := input.settings
	is_object(s)
}

settings_bound if settings

require_list := string_list(object.get(settings, "require_approval", [])) if {
	settings_bound
} else := production_defaults.require_approval if {
	production
} else := non_production_defaults.require_approval

auto_list := string_list(object.get(settings, "auto_approve", [])) if {
	settings_bound
} else := production_defaults.auto_approve if {
	production
} else := non_production_defaults.auto_approve

configured_approvers := n if {
	n := settings.required_approvers
	is_number(n)
	n >= 1
	n == floor(n)
} else := 1

configured_roles := string_list(settings.approver_roles) if {
	count(string_list(settings.approver_roles)) > 0
} else := [] if {
	count(string_list(object.get(settings, "approver_teams", []))) > 0
} else := default_approver_roles

configured_teams := string_list(object.get(settings, "approver_teams", [])) if {
	settings_bound
} else := []

break_glass_allowed if settings.break_glass.allowed == true

break_glass_roles := string_list(settings.break_glass.roles) if {
	count(string_list(settings.break_glass.roles)) > 0
} else := default_break_glass_roles

break_glass_requested if input.command.break_glass.requested == true

justification := trim_space(j) if {
	j := input.command.break_glass.justification
	is_string(j)
} else := ""

# ---- refusals ------------------------------------------------------------------

deny_reasons contains msg if {
	requester_role == "viewer"
	msg := sprintf("requester %s has role viewer, and viewers cannot run commands", [requester_label])
}

deny_reasons contains msg if {
	not requester_has_id
	msg := "the requester is unknown (no id): a command needs an accountable member or service account"
}

deny_reasons contains msg if {
	requester_has_id
	requester_role != "viewer"
	not requester_known
	msg := sprintf(
		"requester %s is neither a member with role owner, admin or member nor a service account (type %q, role %q)",
		[requester_label, object.get(input.requester, "type", ""), requester_role],
	)
}

deny_reasons contains msg if {
	not command_type in command_types
	msg := sprintf("command type %q is not one of %s", [command_type, concat(", ", sort(command_types))])
}

deny_reasons contains msg if {
	break_glass_requested
	not break_glass_allowed
	msg := sprintf("break-glass is not allowed on cluster %s (%s)", [cluster_name, break_glass_source])
}

deny_reasons contains msg if {
	break_glass_requested
	not requester_role in break_glass_roles
	msg := sprintf(
		"break-glass on cluster %s is limited to roles %s; requester %s has role %s",
		[cluster_name, concat(", ", break_glass_roles), requester_label, role_label(requester_role)],
	)
}

deny_reasons contains msg if {
	break_glass_requested
	count(justification) < min_justification_length
	msg := sprintf(
		"break-glass needs a written justification of at least %d characters (got %d)",
		[min_justification_length, count(justification)],
	)
}

break_glass_source := "the cluster's approval settings do not enable it" if {
	settings_bound
} else := "no approval policy is bound to the cluster, and the default does not enable it"

# ---- the decision ----------------------------------------------------------------

# A type listed in both lists requires approval: the stricter setting wins.
outcome := "deny" if {
	count(deny_reasons) > 0
} else := "break_glass" if {
	break_glass_requested
} else := "require_approval" if {
	command_type in require_list
} else := "auto_approve" if {
	command_type in auto_list
} else := "require_approval"

required_approvers := configured_approvers if outcome == "require_approval"

else := 0

approver_roles := configured_roles

approver_teams := configured_teams

reasons := sort(deny_reasons) if {
	outcome == "deny"
} else := [sprintf(
	"break-glass by %s on cluster %s (%s): %s runs at once without approval, is flagged, and goes to the approvals inbox for review",
	[requester_label, cluster_name, cluster_descriptor, command_type],
)] if {
	outcome == "break_glass"
} else := [
	sprintf(
		"%s requires %d %s on cluster %s (%s): %s",
		[command_type, required_approvers, plural(required_approvers, "approval", "approvals"), cluster_name, cluster_descriptor, rule_source],
	),
	sprintf("eligible approvers: %s; never the requester", [approvers_label]),
] if {
	outcome == "require_approval"
} else := [sprintf("%s is auto-approved on cluster %s (%s): %s", [command_type, cluster_name, cluster_descriptor, rule_source])]

# Why the type landed in its list, for the reasons.
rule_source := sprintf("the cluster's approval settings list %s in require_approval", [command_type]) if {
	settings_bound
	command_type in require_list
} else := sprintf("the cluster's approval settings list %s in auto_approve", [command_type]) if {
	settings_bound
	command_type in auto_list
} else := sprintf("the cluster's approval settings do not list %s, so approval is required", [command_type]) if {
	settings_bound
} else := "default for production clusters" if {
	production
} else := "default for non-production clusters"

# Who may approve: a member with one of the roles, or a member of one of the teams.
approvers_label := concat(", or ", array.concat(approver_role_part, approver_team_part))

approver_role_part := [sprintf("members with role %s", [concat(" or ", approver_roles)])] if {
	count(approver_roles) > 0
} else := []

approver_team_part := [sprintf("members of team %s", [concat(" or ", approver_teams)])] if {
	count(approver_teams) > 0
} else := []

# ---- helpers ---------------------------------------------------------------------

# The strings of x when it is an array; [] for anything else.
string_list(x) := [s | some s in x; is_string(s)] if is_array(x)

else := []

plural(1, one, _) := one

plural(n, _, many) := many if n != 1

role_label("") := "none"

role_label(r) := r if r != ""
