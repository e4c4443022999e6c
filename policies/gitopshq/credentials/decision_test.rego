# METADATA
# title: Tests for gitopshq.credentials
# description: |
#   Runs every shared sample in policies/testdata/credentials/<case>/data.json
#   (loaded by `opa test policies/` as data.testdata.credentials.<case>): each
#   carries the input, the policy settings it is decided under (the rules
#   denied_namespaces, denied_cluster_labels and type_environments; absent:
#   the shipped ones) and the expected allowed and denied namespaces.
package gitopshq.credentials_test

import data.gitopshq.credentials

samples := data.testdata.credentials

decide(c) := d if {
	s := object.get(c, "settings", {})
	d := credentials.decision with input as c.input
		with credentials.denied_namespaces as object.get(s, "denied_namespaces", [])
		with credentials.denied_cluster_labels as object.get(s, "denied_cluster_labels", {})
		with credentials.type_environments as object.get(s, "type_environments", {})
}

sample_mismatches contains {"case": name, "got": got, "expected": c.expected} if {
	some name, c in samples
	d := decide(c)
	got := {"allowed": d.allowed, "denied": sort(object.keys(d.denied))}
	got != c.expected
}

test_every_shared_sample_gets_its_expected_decision if {
	count(samples) >= 5
	print("sample mismatches:", sample_mismatches)
	count(sample_mismatches) == 0
}

# ---- the shipped policy changes nothing ---------------------------------------------

test_shipped_policy_allows_every_namespace if {
	d := credentials.decision with input as samples.shipped_allows_everything.input
	d.allowed == ["apps", "kube-system", "payments"]
	d.denied == {}
	d.reasons == []
}

test_shipped_policy_allows_a_production_tls_credential if {
	d := credentials.decision with input as samples.tls_outside_its_environments_denied.input
	d.denied == {}
}

# ---- denials and their reasons --------------------------------------------------------

test_namespace_pattern_denies_only_the_matching_namespace_with_a_reason if {
	d := decide(samples.kube_namespaces_denied)
	d.allowed == ["apps"]
	d.denied == {"kube-system": ["credential registry (dockerconfigjson) may not be synced to namespace kube-system: the organization's credentials policy denies namespaces matching \"kube-*\""]}
}

test_cluster_label_denies_every_namespace_of_the_cluster if {
	d := decide(samples.cluster_label_denied)
	d.allowed == []
	count(d.denied) == 2
	d.reasons == ["credential registry (dockerconfigjson) may not be synced to cluster edge-1: the organization's credentials policy denies clusters labelled credentials=none"]
}

test_type_environments_name_the_cluster_environment if {
	d := decide(samples.tls_outside_its_environments_denied)
	d.denied.ingress == ["credential wildcard (tls) may not be synced to cluster prod-eu: tls credentials go only to environments staging, and the cluster's is \"production\""]
}

test_two_reasons_for_one_namespace_are_both_given if {
	c := samples.cluster_label_denied
	d := credentials.decision with input as c.input
		with credentials.denied_cluster_labels as {"credentials": "none"}
		with credentials.denied_namespaces as ["apps"]
	count(d.denied.apps) == 2
}

test_a_value_in_the_input_is_not_needed_and_no_namespace_is_invented if {
	d := credentials.decision with input as {"namespaces": ["a", 7], "credential": {}, "cluster": {}}
	d.allowed == ["a"]
}
