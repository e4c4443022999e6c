# METADATA
# title: Tests for gitopshq.release
# description: |
#   Runs every shared sample in policies/testdata/release/<case>/data.json
#   (loaded by `opa test policies/` as data.testdata.release.<case>) and checks
#   the defaults and reasons one by one. The same samples are run by the Java
#   OpaClientIT against a real OPA, which also parses each decision the way the
#   hub does.
package gitopshq.release_test

import data.gitopshq.release

samples := data.testdata.release

# The samples a decision disagrees with, with what came out instead.
sample_mismatches contains {"case": name, "got": got, "expected": c.expected} if {
	some name, c in samples
	d := release.decision with input as c.input
	got := {"outcome": d.outcome, "required_approvers": d.required_approvers}
	got != c.expected
}

test_every_shared_sample_gets_its_expected_outcome if {
	count(samples) >= 16
	print("sample mismatches:", sample_mismatches)
	count(sample_mismatches) == 0
}

test_samples_cover_every_outcome if {
	outcomes := {c.expected.outcome | some c in samples}
	outcomes == {"auto_approve", "require_approval", "deny", "break_glass"}
}

test_samples_cover_every_action if {
	actions := {c.input.action | some c in samples}
	actions == {"deploy", "promote", "rollback", "delete"}
}

# ---- production environments ---------------------------------------------------

test_promotion_to_production_reason_names_action_release_and_environment if {
	d := release.decision with input as samples.promote_production_requires_approval.input
	d.reasons == [
		"promote of release #12 (project shop) to production requires 1 approval: production is a production environment (named production and last in the organization's order); production environments require approval by default",
		"eligible approvers: members with role admin or owner; never the requester",
	]
	d.approver_roles == ["admin", "owner"]
	d.approver_teams == []
}

test_the_last_environment_is_production_whatever_its_name if {
	d := release.decision with input as samples.promote_last_environment_requires_approval.input
	d.outcome == "require_approval"
	contains(d.reasons[0], "to prod-eu requires 1 approval: prod-eu is a production environment (last in the organization's order)")
}

test_an_environment_named_production_is_production_wherever_it_is if {
	d := release.decision with input as samples.promote_named_production_not_last_requires_approval.input
	d.outcome == "require_approval"
	contains(d.reasons[0], "production is a production environment (named production);")
}

test_one_production_environment_among_several_gates_the_whole_deployment if {
	d := release.decision with input as samples.promote_staging_and_production_requires_approval.input
	d.required_approvers == 1
	startswith(d.reasons[0], "promote of release #12 (project shop) to staging, production requires 1 approval: production is")
	not contains(d.reasons[0], "staging is a production environment")
}

test_every_action_into_production_requires_approval if {
	base := samples.promote_production_requires_approval.input
	every a in ["deploy", "promote", "rollback"] {
		d := release.decision with input as object.union(base, {"action": a})
		d.outcome == "require_approval"
		d.required_approvers == 1
	}
}

test_rollback_in_production_reason_says_in if {
	d := release.decision with input as samples.rollback_production_requires_approval.input
	startswith(d.reasons[0], "rollback of release #13 (project shop) in production requires 1 approval")
}

# ---- other environments ----------------------------------------------------------

test_every_action_outside_production_is_auto_approved if {
	base := samples.promote_staging_auto_approved.input
	every a in ["deploy", "promote", "rollback"] {
		d := release.decision with input as object.union(base, {"action": a, "environments": [
			{"name": "dev", "position": 1, "last": false},
			{"name": "staging", "position": 2, "last": false},
		]})
		d.outcome == "auto_approve"
		d.required_approvers == 0
	}
}

test_auto_approve_reason if {
	d := release.decision with input as samples.deploy_dev_auto_approved.input
	d.reasons == ["deploy of release #12 (project shop) to dev is auto-approved: no production environment is involved (none is named production or last in the organization's order)"]
}

test_rollback_outside_production_is_auto_approved if {
	d := release.decision with input as samples.rollback_staging_auto_approved.input
	d.outcome == "auto_approve"
	startswith(d.reasons[0], "rollback of release #13 (project shop) in staging is auto-approved")
}

test_a_nameless_last_environment_still_counts_as_production if {
	base := samples.promote_staging_auto_approved.input
	d := release.decision with input as object.union(base, {"environments": [{"name": "staging", "last": false}, {"last": true}]})
	d.outcome == "require_approval"
	contains(d.reasons[0], "(unnamed) is a production environment")
}

test_labels_without_release_number_or_project_name if {
	base := object.remove(samples.deploy_dev_auto_approved.input, ["project"])
	by_id := release.decision with input as object.union(base, {"release": {"number": null}})
	startswith(by_id.reasons[0], "deploy of release 3c1e9a7b-5d2f-4e8a-b6c0-1f9d2e7a4b55 to dev is")
	nothing := release.decision with input as object.remove(base, ["release"])
	startswith(nothing.reasons[0], "deploy of the release to dev is")
}

# ---- what the deployment changes ---------------------------------------------------

test_a_cluster_role_binding_in_dev_requires_approval_naming_it if {
	d := release.decision with input as samples.deploy_dev_cluster_role_binding_requires_approval.input
	d.outcome == "require_approval"
	d.required_approvers == 1
	d.approver_roles == ["admin", "owner"]
	d.reasons == [
		"deploy of release #12 (project shop) to dev requires 1 approval: it adds, changes or removes 1 RBAC or cluster-scoped object: added ClusterRoleBinding checkout-admin (dev, cluster dev-1); such objects require approval in every environment",
		"eligible approvers: members with role admin or owner; never the requester",
	]
}

test_a_plain_deployment_change_in_dev_stays_auto_approved if {
	d := release.decision with input as samples.deploy_dev_deployment_change_auto_approved.input
	d.outcome == "auto_approve"
	d.reasons == ["deploy of release #12 (project shop) to dev is auto-approved: no production environment is involved (none is named production or last in the organization's order); it adds, changes or removes no RBAC or cluster-scoped object"]
}

test_a_namespaced_role_removed_by_a_rollback_requires_approval if {
	d := release.decision with input as samples.rollback_staging_removing_a_role_requires_approval.input
	d.outcome == "require_approval"
	contains(d.reasons[0], "removed Role checkout-secrets-reader in namespace shop (staging, cluster stg-1)")
}

test_an_unreadable_manifest_requires_approval if {
	d := release.decision with input as samples.deploy_dev_unreadable_manifest_requires_approval.input
	d.outcome == "require_approval"
	d.reasons[0] == "deploy of release #12 (project shop) to dev requires 1 approval: 1 changed manifest file could not be read as Kubernetes objects, so what it changes is not known"
}

test_the_reason_names_a_few_objects_then_counts_the_rest if {
	base := samples.deploy_dev_cluster_role_binding_requires_approval.input
	roles := [o |
		some n in numbers.range(1, 5)
		o := {"kind": "ClusterRole", "name": sprintf("r%d", [n]), "namespace": "", "cluster_scoped": true, "rbac": true}
	]
	changes := object.union(base.changes, {
		"summary": {"added": 5, "rbac": 5, "cluster_scoped": 5, "sensitive": 7},
		"environments": [{"name": "dev", "clusters": [{"name": "dev-1", "added": roles}]}],
		"truncated": true,
	})
	d := release.decision with input as object.union(base, {"changes": changes})
	contains(d.reasons[0], "removes 7 RBAC or cluster-scoped objects: added ClusterRole r1 (dev, cluster dev-1), added ClusterRole r2 (dev, cluster dev-1), added ClusterRole r3 (dev, cluster dev-1) and 4 more;")
}

test_cut_lists_still_gate_on_the_exact_totals if {
	base := samples.deploy_dev_deployment_change_auto_approved.input
	changes := object.union(base.changes, {"summary": {"cluster_scoped": 2}, "environments": [], "truncated": true})
	d := release.decision with input as object.union(base, {"changes": changes})
	d.outcome == "require_approval"
	contains(d.reasons[0], "removes 2 RBAC or cluster-scoped objects: none is listed (the change lists were cut);")
}

test_production_and_sensitive_changes_give_both_reasons_and_one_approval if {
	base := samples.deploy_dev_cluster_role_binding_requires_approval.input
	d := release.decision with input as object.union(base, {"environments": [{"name": "production", "position": 3, "last": true}]})
	d.required_approvers == 1
	count(d.reasons) == 3
	contains(d.reasons[0], "production environments require approval by default")
	contains(d.reasons[1], "added ClusterRoleBinding checkout-admin")
}

test_break_glass_and_denials_still_come_first if {
	base := samples.deploy_dev_cluster_role_binding_requires_approval.input
	glass := release.decision with input as object.union(base, {
		"requester": {"role": "admin"},
		"break_glass": {"requested": true, "justification": "the payment outage needs this binding now"},
	})
	glass.outcome == "break_glass"
	viewer := release.decision with input as object.union(base, {"requester": {"role": "viewer"}})
	viewer.outcome == "deny"
}

# ---- requesters ---------------------------------------------------------------------

test_viewer_reason if {
	d := release.decision with input as samples.viewer_denied.input
	d.reasons == ["requester victor@example.com has role viewer, and viewers cannot deploy, promote or roll back releases"]
}

test_unknown_requester_reason if {
	d := release.decision with input as samples.unknown_requester_denied.input
	d.reasons == ["the requester is unknown (no id): a deployment needs an accountable member or service account"]
}

test_member_with_unknown_role_or_type_is_denied if {
	base := samples.promote_staging_auto_approved.input
	intern := release.decision with input as object.union(base, {"requester": {"role": "intern"}})
	intern.outcome == "deny"
	contains(intern.reasons[0], `role "intern"`)
	robot := release.decision with input as object.union(base, {"requester": {"type": "robot"}})
	robot.outcome == "deny"
	contains(robot.reasons[0], `type "robot"`)
}

test_service_accounts_follow_the_same_rules_as_members if {
	every name in ["deploy_dev_auto_approved", "promote_production_requires_approval", "rollback_staging_auto_approved", "rollback_production_requires_approval"] {
		base := samples[name]
		as_member := release.decision with input as base.input
		as_service_account := release.decision with input as object.union(base.input, {"requester": samples.service_account_deploy_dev_auto_approved.input.requester})
		as_member.outcome == as_service_account.outcome
		as_member.required_approvers == as_service_account.required_approvers
	}
}

test_no_input_at_all_is_denied if {
	d := release.decision
	d.outcome == "deny"
	count(d.reasons) == 3
	some r in d.reasons
	startswith(r, "the requester is unknown")
}

test_unknown_action_reason if {
	d := release.decision with input as samples.unknown_action_denied.input
	d.reasons == [`action "delete" is not one of deploy, promote, rollback`]
}

test_no_environment_reason if {
	d := release.decision with input as samples.no_environments_denied.input
	d.reasons == ["the promotion of release #12 names no environment"]
}

# ---- break-glass ---------------------------------------------------------------------

test_break_glass_reason_flags_the_bypass if {
	d := release.decision with input as samples.break_glass_by_admin.input
	d.reasons == ["break-glass by ana@example.com: promote of release #12 (project shop) to production is written at once without approval, is flagged, and goes to the approvals inbox for review"]
	d.required_approvers == 0
	d.approver_roles == ["admin", "owner"]
}

test_break_glass_by_owner if {
	base := samples.break_glass_by_admin.input
	d := release.decision with input as object.union(base, {"requester": {"role": "owner"}})
	d.outcome == "break_glass"
}

test_break_glass_short_justification_reason_counts_trimmed_characters if {
	d := release.decision with input as samples.break_glass_short_justification_denied.input
	d.reasons == ["break-glass needs a written justification of at least 20 characters (got 8)"]

	base := samples.break_glass_by_admin.input
	nineteen := release.decision with input as object.union(base, {"break_glass": {"justification": "  1234567890123456789  "}})
	nineteen.outcome == "deny"
	twenty := release.decision with input as object.union(base, {"break_glass": {"justification": "12345678901234567890"}})
	twenty.outcome == "break_glass"
	missing := release.decision with input as object.union(base, {"break_glass": {"justification": null}})
	missing.outcome == "deny"
}

test_break_glass_member_reason_names_the_roles if {
	d := release.decision with input as samples.break_glass_by_member_denied.input
	d.reasons == ["break-glass on a release is limited to roles admin, owner; requester alice@example.com has role member"]
}

test_break_glass_by_service_account_is_denied_not_downgraded if {
	d := release.decision with input as samples.break_glass_by_service_account_denied.input
	d.outcome == "deny"
	d.reasons == ["break-glass on a release is limited to roles admin, owner; requester github-actions has role none"]
}

test_break_glass_lists_every_failed_condition if {
	base := samples.break_glass_by_member_denied.input
	d := release.decision with input as object.union(base, {"break_glass": {"justification": "now"}})
	d.outcome == "deny"
	count(d.reasons) == 2
}

test_break_glass_outside_production_is_still_flagged if {
	base := samples.break_glass_by_admin.input
	d := release.decision with input as object.union(base, {"environments": [{"name": "staging", "position": 2, "last": false}]})
	d.outcome == "break_glass"
}

test_break_glass_not_requested_ignores_the_justification if {
	base := samples.promote_production_requires_approval.input
	d := release.decision with input as object.union(base, {"break_glass": {"requested": false, "justification": "x"}})
	d.outcome == "require_approval"
}
