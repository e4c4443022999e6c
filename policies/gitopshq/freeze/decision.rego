# METADATA
# title: GitOpsHQ environment freezes
# description: |
#   Decides whether a deployment of a release (deploy, promote or rollback),
#   or a command on a cluster, falls into a freeze window, and whether the
#   freeze blocks it. The hub evaluates data.gitopshq.freeze before the
#   release approval of a deployment and before the approval decision of a
#   command a window covers, and reads the `decision` rule and the
#   `gitopshq_policy_version` rule it appends when publishing.
#
#   Freeze windows are data, not input: the hub keeps the organization's
#   windows at data.gitopshq_data.freeze_windows (it writes them to OPA after
#   every change, and again on every republish pass):
#     [{id, environment: name or "" (every environment),
#       project: name or "" (every project),
#       starts_at, ends_at (RFC 3339), reason,
#       command_types: the command types it also holds, "all" for every
#       type; empty or absent: deployments only}]
#   A window applies to a deployment when starts_at <= input.time < ends_at,
#   its environment is one of input.environments (or ""), and its project is
#   input.project (or ""). It applies to a command when it covers the time,
#   its command_types hold the command's type (or "all"), its environment is
#   the cluster's (or ""), and it is not limited to one project.
#
#   Input document:
#     action       "deploy"|"promote"|"rollback"|"command"
#     project      {id, name} ("" for a command)
#     environments [{name, ...}] the environments the deployment writes to;
#                  for a command, the cluster's environment when it has one
#     command      {type} (commands only)
#     cluster      {id, name, environment} (commands only)
#     break_glass  {requested: bool, justification: string}
#     time         RFC 3339 string
#
#   Decision document:
#     {frozen: bool, blocked: bool, windows: [ids of the windows that apply],
#      reasons: [sentences a person can read], windows_loaded: bool}
#   frozen: at least one window applies. blocked: frozen, and break-glass
#   was not requested with a non-blank justification. Who may break the glass
#   is the release policy's business (gitopshq.release), which the
#   deployment also has to pass.
#
#   Fails closed: when the windows are not loaded into OPA (windows_loaded
#   false), when input.time is not an RFC 3339 time, the decision is frozen
#   and blocked whatever break-glass says; a window whose times cannot be
#   read applies as if it covered now.
#
#   The rule name gitopshq_policy_version is reserved: the hub appends
#   `gitopshq_policy_version := <N>` to every version it publishes.
#
#   docs/policies.md in the GitOpsHQ repository is the authoring guide.
# scope: package
package gitopshq.freeze

# METADATA
# title: decision
# description: The freeze decision for the deployment in input; see the package description.
# entrypoint: true
decision := {
	"frozen": frozen,
	"blocked": blocked,
	"windows": window_ids,
	"reasons": reasons,
	"windows_loaded": windows_loaded,
}

# ---- the data ----------------------------------------------------------------------

windows_loaded := is_array(data.gitopshq_data.freeze_windows)

default windows_loaded := false

freeze_windows := w if {
	w := data.gitopshq_data.freeze_windows
	is_array(w)
} else := []

# ---- facts about the input ---------------------------------------------------------

now_ns := time.parse_rfc3339_ns(input.time) if is_string(input.time)

time_readable if now_ns

environment_names := [n |
	some e in input.environments
	n := e.name
	is_string(n)
	n != ""
]

project_name := n if {
	n := input.project.name
	is_string(n)
} else := ""

action_nouns := {"deploy": "deployment", "promote": "promotion", "rollback": "rollback"}

action_noun := sprintf("%s command", [command_type]) if {
	is_command
} else := object.get(action_nouns, input.action, "deployment")

is_command if input.action == "command"

command_type := t if {
	t := input.command.type
	is_string(t)
} else := ""

cluster_name := n if {
	n := input.cluster.name
	is_string(n)
} else := ""

cluster_environment := e if {
	e := input.cluster.environment
	is_string(e)
} else := ""

break_glass_requested if input.break_glass.requested == true

justification := trim_space(j) if {
	j := input.break_glass.justification
	is_string(j)
} else := ""

break_glass if {
	break_glass_requested
	justification != ""
}

# ---- which windows apply -------------------------------------------------------------

# A window's environment or project; "" (and null, or no such field) means every one.
scope(w, field) := s if {
	s := w[field]
	is_string(s)
} else := ""

# The input's environments a window covers, in input order.
covered(w) := [n |
	some n in environment_names
	scope(w, "environment") in {"", n}
]

in_scope(w) if {
	not is_command
	count(covered(w)) > 0
	scope(w, "project") in {"", project_name}
}

# A command: the window holds its type, on its cluster's environment, for every project.
in_scope(w) if {
	is_command
	covers_command_type(w)
	scope(w, "project") == ""
	scope(w, "environment") in {"", cluster_environment}
}

# The command types a window holds; none (deployments only) when absent.
command_types(w) := t if {
	t := w.command_types
	is_array(t)
} else := []

covers_command_type(w) if {
	some t in command_types(w)
	t in {"all", command_type}
}

readable_times(w) if {
	time.parse_rfc3339_ns(w.starts_at) <= time.parse_rfc3339_ns(w.ends_at)
}

covers_now(w) if {
	time.parse_rfc3339_ns(w.starts_at) <= now_ns
	now_ns < time.parse_rfc3339_ns(w.ends_at)
}

# Windows that apply: in scope and covering now, or in scope with times
# that cannot be read (fail closed).
applying contains w if {
	some w in freeze_windows
	in_scope(w)
	covers_now(w)
}

applying contains w if {
	some w in freeze_windows
	in_scope(w)
	not readable_times(w)
}

window_ids := sort([window_id(w) | some w in applying])

window_id(w) := sprintf("%v", [object.get(w, "id", "(no id)")])

# ---- the decision ----------------------------------------------------------------------

# Problems that leave nothing to decide on; they block even with break-glass.
problems contains "the freeze windows are not loaded into OPA yet (data.gitopshq_data.freeze_windows is missing), so every deployment is treated as frozen; the hub loads them within seconds" if {
	not windows_loaded
}

problems contains msg if {
	not time_readable
	msg := sprintf("input.time %s is not an RFC 3339 time, so every deployment is treated as frozen", [json.marshal(object.get(input, "time", null))])
}

frozen if count(applying) > 0

frozen if count(problems) > 0

default frozen := false

blocked if count(problems) > 0

blocked if {
	frozen
	not break_glass
}

default blocked := false

reasons := sort(problems) if {
	count(problems) > 0
} else := array.concat(window_reasons, break_glass_reasons) if {
	frozen
} else := [sprintf("no freeze window covers %s at %s", [environments_label, input.time])]

# One sentence per applying window, by end time then id.
window_reasons := [entry[2] |
	some entry in sort({[sprintf("%v", [object.get(w, "ends_at", "")]), window_id(w), window_reason(w)] | some w in applying})
]

window_reason(w) := sprintf("cluster %s%s is frozen for %s until %s%s", [
	cluster_name,
	cluster_environment_part,
	command_types_label(w),
	w.ends_at,
	reason_part(w),
]) if {
	is_command
	readable_times(w)
} else := sprintf("cluster %s%s is frozen for %s by window %s, whose starts_at or ends_at is not an RFC 3339 time (such a window applies at all times until it is fixed)%s", [
	cluster_name,
	cluster_environment_part,
	command_types_label(w),
	window_id(w),
	reason_part(w),
]) if {
	is_command
} else := sprintf("%s %s frozen%s until %s%s", [
	concat(", ", covered(w)),
	verb(count(covered(w))),
	project_part(w),
	w.ends_at,
	reason_part(w),
]) if {
	readable_times(w)
} else := sprintf("%s %s frozen%s by window %s, whose starts_at or ends_at is not an RFC 3339 time (such a window applies at all times until it is fixed)%s", [
	concat(", ", covered(w)),
	verb(count(covered(w))),
	project_part(w),
	window_id(w),
	reason_part(w),
])

project_part(w) := sprintf(" for project %s", [scope(w, "project")]) if {
	scope(w, "project") != ""
} else := ""

reason_part(w) := sprintf(": %s", [r]) if {
	r := w.reason
	is_string(r)
	trim_space(r) != ""
} else := ""

break_glass_reasons := [sprintf("break-glass overrides the freeze for this %s; justification: %s", [action_noun, justification])] if {
	break_glass
} else := [sprintf("break-glass was requested without a justification, so the freeze blocks this %s", [action_noun])] if {
	break_glass_requested
} else := [sprintf("the %s is blocked until the freeze ends, or unless it is requested as break-glass with a written justification", [action_noun])]

cluster_environment_part := sprintf(" (environment %s)", [cluster_environment]) if {
	cluster_environment != ""
} else := ""

command_types_label(w) := "every command" if {
	"all" in command_types(w)
} else := sprintf("%s commands", [concat(", ", sort([t | some t in command_types(w); is_string(t)]))])

environments_label := sprintf("%s commands on cluster %s", [command_type, cluster_name]) if {
	is_command
} else := concat(", ", environment_names) if {
	count(environment_names) > 0
} else := "no environment"

# ---- helpers ---------------------------------------------------------------------------

verb(1) := "is"

verb(n) := "are" if n != 1
