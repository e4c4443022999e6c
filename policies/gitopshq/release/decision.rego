# METADATA
# title: GitOpsHQ release approval
# description: |
#   Decides whether a deployment of a release (its first deploy, a promotion,
#   or a rollback) is written at once, waits for approvers in the approvals
#   inbox, is written at once as break-glass, or is refused. The decision has
#   the same shape as gitopshq.approval, so the hub runs the same approval
#   sub-workflow for releases as for commands.
#   The hub evaluates data.gitopshq.release and reads the `decision` rule and
#   the `gitopshq_policy_version` rule it appends when publishing.
#
#   Input document:
#     action       "deploy"|"promote"|"rollback"
#     release      {id, number, kind: "standard"|"rollback", description,
#                   changes: int}
#     project      {id, name}
#     environments [{name, position, last: bool}] the environments written,
#                  in the organization's order; `last` marks the last
#                  environment of that order (the production-like one)
#     requester    {id, type: "member"|"service_account", name,
#                   role: "owner"|"admin"|"member"|"viewer"|"", teams: [...]}
#     break_glass  {requested: bool, justification: string}
#     time         RFC 3339 string
#     changes      what the deployment would change on its deploy branches,
#                  comparing the tree it writes with what each branch holds
#                  now (docs/policies.md has an example):
#       summary      {added, changed, removed: objects, over every
#                     environment; cluster_scoped, rbac: how many of those
#                     are cluster-scoped, in group rbac.authorization.k8s.io;
#                     sensitive: how many are either (each counted once);
#                     images: container image changes; unreadable: manifest
#                     files that could not be read as Kubernetes objects}
#       environments [{name, clusters: [{name, counts: {added, changed,
#                     removed, unreadable}, added: [object], changed: [object],
#                     removed: [object], unreadable: [path]}]}]; objects of
#                     Kustomize bases are under cluster "_bases"
#       images       [{environment, cluster, namespace, kind, name, container,
#                     from, to}]; from is "" for a new container, to "" for
#                     a removed one
#       truncated    true when a list was cut (at 500 entries each); the
#                     summary and counts are always exact
#     object       {group, version, kind, namespace, name, cluster_scoped,
#                   rbac}
#
#   Decision document (as gitopshq.approval):
#     {outcome: "auto_approve"|"require_approval"|"deny"|"break_glass",
#      required_approvers: int, approver_roles: [...], approver_teams: [...],
#      reasons: [sentences a person can read]}
#
#   Defaults:
#     - viewers and unknown requesters (no id; a member without role owner,
#       admin or member; any other type) are denied; service accounts follow
#       the same rules as members;
#     - an action other than deploy, promote or rollback, or a deployment
#       without environments, is denied;
#     - any production environment (named "production", or last in the
#       organization's order) among the environments: deploy, promote and
#       rollback require 1 approval from a member with role admin or owner;
#     - in every environment, a deployment that adds, changes or removes an
#       RBAC or cluster-scoped object, or changes a manifest that cannot be
#       read, requires 1 approval from a member with role admin or owner;
#       the reason names the first objects;
#     - otherwise deploy, promote and rollback are auto-approved;
#     - break-glass: granted (outcome break_glass) to a member with role
#       admin or owner who writes a justification of at least 20 characters
#       (after trimming spaces); otherwise denied, with a reason for each
#       failed condition.
#
#   The rule name gitopshq_policy_version is reserved: the hub appends
#   `gitopshq_policy_version := <N>` to every version it publishes.
#
#   docs/policies.md in the GitOpsHQ repository is the authoring guide.
# scope: package
package gitopshq.release

# What a deployment can do; anything else is refused.
actions := {"deploy", "promote", "rollback"}

# Roles a member can hold that may move releases at all.
operating_roles := {"owner", "admin", "member"}

# Who approves a deployment into production, and who may break the glass.
approver_role_list := ["admin", "owner"]

break_glass_roles := ["admin", "owner"]

# Distinct approvals a production deployment needs.
production_approvers := 1

# Distinct approvals a deployment that changes RBAC or cluster-scoped objects
# (or unreadable manifests) needs, in any environment.
sensitive_change_approvers := 1

# How many of those objects a reason names before "and N more".
named_objects := 3

# A justification shorter than this (after trimming) is not a justification.
min_justification_length := 20

# The environment name that is production whatever its position.
production_name := "production"

# METADATA
# title: decision
# description: The approval decision for the deployment in input; see the package description.
# entrypoint: true
decision := {
	"outcome": outcome,
	"required_approvers": required_approvers,
	"approver_roles": approver_role_list,
	"approver_teams": [],
	"reasons": reasons,
}

# ---- facts about the input ----------------------------------------------------

action := a if {
	a := input.action
	is_string(a)
} else := ""

# The environments' names, in the order given; entries without a name are skipped.
environment_names := [n |
	some e in environments
	n := e.name
	is_string(n)
	n != ""
]

environments := e if {
	e := input.environments
	is_array(e)
} else := []

# The production environments among them: named production, or last in the
# organization's order (an entry without a name counts when it is last).
production_environments := [e |
	some e in environments
	is_production(e)
]

production if count(production_environments) > 0

is_production(e) if e.name == production_name

is_production(e) if e.last == true

release_label := sprintf("release #%d", [n]) if {
	n := input.release.number
	is_number(n)
} else := sprintf("release %s", [i]) if {
	i := input.release.id
	is_string(i)
	i != ""
} else := "the release"

project_label := sprintf(" (project %s)", [n]) if {
	n := input.project.name
	is_string(n)
	n != ""
} else := ""

# "to staging, production" for deploy and promote; "in production" for rollback.
target_label := sprintf("in %s", [concat(", ", environment_names)]) if {
	action == "rollback"
} else := sprintf("to %s", [concat(", ", environment_names)])

# e.g. "promote of release #12 (project shop) to staging, production"
deployment_label := sprintf("%s of %s%s %s", [action, release_label, project_label, target_label])

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

break_glass_requested if input.break_glass.requested == true

# ---- what the deployment changes ---------------------------------------------

changes_given if is_object(input.changes)

change_total(field) := n if {
	n := input.changes.summary[field]
	is_number(n)
} else := 0

change_environments := e if {
	e := input.changes.environments
	is_array(e)
} else := []

env_clusters(e) := c if {
	c := e.clusters
	is_array(c)
} else := []

cluster_objects(c, how) := l if {
	l := c[how]
	is_array(l)
} else := []

is_sensitive(o) if o.rbac == true

is_sensitive(o) if o.cluster_scoped == true

# The listed RBAC or cluster-scoped objects, e.g.
# "added ClusterRoleBinding web-admin (dev, cluster c1)".
sensitive_objects := [label |
	some e in change_environments
	some c in env_clusters(e)
	some how in ["added", "changed", "removed"]
	some o in cluster_objects(c, how)
	is_sensitive(o)
	label := sprintf("%s %s %v%s (%v, cluster %v)", [how, o.kind, o.name, namespace_label(o), e.name, c.name])
]

namespace_label(o) := sprintf(" in namespace %v", [o.namespace]) if {
	is_string(o.namespace)
	o.namespace != ""
} else := ""

# Exact even when the lists were cut; an input without `sensitive` still counts.
sensitive_total := max([
	change_total("sensitive"),
	change_total("rbac"),
	change_total("cluster_scoped"),
	count(sensitive_objects),
])

sensitive_change if sensitive_total > 0

unreadable_change if change_total("unreadable") > 0

justification := trim_space(j) if {
	j := input.break_glass.justification
	is_string(j)
} else := ""

# ---- refusals ------------------------------------------------------------------

deny_reasons contains msg if {
	requester_role == "viewer"
	msg := sprintf("requester %s has role viewer, and viewers cannot deploy, promote or roll back releases", [requester_label])
}

deny_reasons contains msg if {
	not requester_has_id
	msg := "the requester is unknown (no id): a deployment needs an accountable member or service account"
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
	not action in actions
	msg := sprintf("action %q is not one of deploy, promote, rollback", [action])
}

deny_reasons contains msg if {
	count(environment_names) == 0
	msg := sprintf("the %s of %s names no environment", [action_noun, release_label])
}

deny_reasons contains msg if {
	break_glass_requested
	not requester_role in break_glass_roles
	msg := sprintf(
		"break-glass on a release is limited to roles %s; requester %s has role %s",
		[concat(", ", break_glass_roles), requester_label, role_label(requester_role)],
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

action_nouns := {"deploy": "deployment", "promote": "promotion", "rollback": "rollback"}

action_noun := object.get(action_nouns, action, "deployment")

# ---- the decision ----------------------------------------------------------------

outcome := "deny" if {
	count(deny_reasons) > 0
} else := "break_glass" if {
	break_glass_requested
} else := "require_approval" if {
	count(approval_gates) > 0
} else := "auto_approve"

# Why the deployment needs approvers, with how many each reason needs.
approval_gates contains ["production", production_approvers] if production

approval_gates contains ["sensitive", sensitive_change_approvers] if sensitive_change

approval_gates contains ["unreadable", sensitive_change_approvers] if unreadable_change

required_approvers := max([n | some [_, n] in approval_gates]) if outcome == "require_approval"

else := 0

reasons := sort(deny_reasons) if {
	outcome == "deny"
} else := [sprintf(
	"break-glass by %s: %s is written at once without approval, is flagged, and goes to the approvals inbox for review",
	[requester_label, deployment_label],
)] if {
	outcome == "break_glass"
} else := array.concat(approval_reasons, [sprintf(
	"eligible approvers: members with role %s; never the requester",
	[concat(" or ", approver_role_list)],
)]) if {
	outcome == "require_approval"
} else := [sprintf(
	"%s is auto-approved: no production environment is involved (none is named production or last in the organization's order)%s",
	[deployment_label, auto_approve_note],
)]

approvals_label := sprintf("%d %s", [required_approvers, plural(required_approvers, "approval", "approvals")])

# One sentence per gate, production first.
approval_reasons := [msg |
	some gate in ["production", "sensitive", "unreadable"]
	some pair in approval_gates
	pair[0] == gate
	msg := gate_reason(gate)
]

gate_reason("production") := sprintf(
	"%s requires %s: %s; production environments require approval by default",
	[deployment_label, approvals_label, production_summary],
)

gate_reason("sensitive") := sprintf(
	"%s requires %s: it adds, changes or removes %d RBAC or cluster-scoped %s: %s; such objects require approval in every environment",
	[deployment_label, approvals_label, sensitive_total, plural(sensitive_total, "object", "objects"), sensitive_list],
)

gate_reason("unreadable") := sprintf(
	"%s requires %s: %d changed manifest %s could not be read as Kubernetes objects, so what it changes is not known",
	[deployment_label, approvals_label, change_total("unreadable"), plural(change_total("unreadable"), "file", "files")],
)

# e.g. "added ClusterRoleBinding web-admin (dev, cluster c1) and 2 more"
sensitive_list := "none is listed (the change lists were cut)" if {
	count(sensitive_objects) == 0
} else := concat("", [concat(", ", array.slice(sensitive_objects, 0, named_objects)), more_label])

more_label := sprintf(" and %d more", [n]) if {
	n := sensitive_total - min([count(sensitive_objects), named_objects])
	n > 0
} else := ""

auto_approve_note := "; it adds, changes or removes no RBAC or cluster-scoped object" if changes_given

else := ""

# e.g. "production is a production environment (named production)"
production_summary := concat("; ", [msg |
	some e in production_environments
	msg := sprintf("%s is a production environment (%s)", [env_label(e), production_why(e)])
])

production_why(e) := "named production and last in the organization's order" if {
	e.name == production_name
	e.last == true
} else := "named production" if {
	e.name == production_name
} else := "last in the organization's order"

env_label(e) := e.name if {
	is_string(e.name)
	e.name != ""
} else := "(unnamed)"

# ---- helpers ---------------------------------------------------------------------

plural(1, one, _) := one

plural(n, _, many) := many if n != 1

role_label("") := "none"

role_label(r) := r if r != ""
