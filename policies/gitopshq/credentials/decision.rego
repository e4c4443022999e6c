# METADATA
# title: GitOpsHQ credential sync
# description: |
#   Decides, namespace by namespace, whether the hub may write one of the
#   organization's credentials into a cluster. The hub evaluates
#   data.gitopshq.credentials once per credential and cluster before it sends
#   anything, and reads the `decision` rule and the `gitopshq_policy_version`
#   rule it appends when publishing. A denied namespace gets no Secret (the
#   agent removes one it wrote before), its sync status is failed with the
#   reasons below, and the audit log records credential.sync_denied.
#
#   Input document (never a credential's value):
#     organization {id, slug, name}
#     cluster      {id, name, environment, labels: {...}}
#     credential   {id, name, type: "dockerconfigjson"|"tls"|"opaque"}
#     namespaces   [namespace names the credential is assigned to on the cluster]
#     cause        why the hub syncs now, e.g. "the agent connected"
#     actor        who caused it: a member's or service account's id, or "system"
#     time         RFC 3339 string
#
#   Decision document:
#     {allowed: [namespaces], denied: {namespace: [reasons]}, reasons: [...]}
#   A namespace of the input that is in neither list, or in both, is denied.
#
#   The shipped version denies nothing (every assignment is synced, as before
#   credential sync was governed). Deny by listing namespaces or cluster labels
#   below, or by adding `denials contains [namespace, reason] if {...}` rules.
#
#   The rule name gitopshq_policy_version is reserved: the hub appends
#   `gitopshq_policy_version := <N>` to every version it publishes.
#
#   docs/policies.md in the GitOpsHQ repository is the authoring guide.
# scope: package
package gitopshq.credentials

# Namespaces no credential is synced to: exact names or glob patterns
# ("kube-*"). Empty: every namespace may receive credentials.
denied_namespaces := []

# Cluster labels that refuse every credential, e.g. {"credentials": "none"}.
denied_cluster_labels := {}

# Credential types synced only to clusters of these environments, e.g.
# {"tls": ["production"]}. A type not listed goes everywhere.
type_environments := {}

# METADATA
# title: decision
# description: The credential sync decision for input; see the package description.
# entrypoint: true
decision := {
	"allowed": allowed,
	"denied": denied,
	"reasons": reasons,
}

# ---- facts about the input ----------------------------------------------------

target_namespaces := {ns | some ns in input.namespaces; is_string(ns)}

credential_label := sprintf("%s (%s)", [input.credential.name, input.credential.type]) if {
	is_string(input.credential.name)
	is_string(input.credential.type)
} else := "(unnamed credential)"

cluster_name := n if {
	n := input.cluster.name
	is_string(n)
	n != ""
} else := "(unnamed cluster)"

# ---- denials: [namespace, reason] ------------------------------------------------

denials contains [ns, msg] if {
	some ns in target_namespaces
	some pattern in denied_namespaces
	glob.match(pattern, [], ns)
	msg := sprintf(
		"credential %s may not be synced to namespace %s: the organization's credentials policy denies namespaces matching %q",
		[credential_label, ns, pattern],
	)
}

denials contains [ns, msg] if {
	some key, value in denied_cluster_labels
	input.cluster.labels[key] == value
	some ns in target_namespaces
	msg := sprintf(
		"credential %s may not be synced to cluster %s: the organization's credentials policy denies clusters labelled %s=%s",
		[credential_label, cluster_name, key, value],
	)
}

denials contains [ns, msg] if {
	envs := type_environments[input.credential.type]
	not input.cluster.environment in envs
	some ns in target_namespaces
	msg := sprintf(
		"credential %s may not be synced to cluster %s: %s credentials go only to environments %s, and the cluster's is %q",
		[credential_label, cluster_name, input.credential.type, concat(", ", envs), object.get(input.cluster, "environment", "")],
	)
}

# ---- the decision ----------------------------------------------------------------

denied := {ns: sort(msgs) |
	some ns in target_namespaces
	msgs := {msg | some [n, msg] in denials; n == ns}
	count(msgs) > 0
}

allowed := sort([ns | some ns in target_namespaces; not denied[ns]])

reasons := sort({msg | some [_, msg] in denials})
