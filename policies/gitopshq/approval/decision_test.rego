# METADATA
# title: Tests for gitopshq.approval
# description: |
#   Runs every shared sample in policies/testdata/approval/<case>/data.json
#   (loaded by `opa test policies/` as data.testdata.approval.<case>) and checks
#   the branches and reasons one by one. The same samples are run by the Java
#   OpaClientIT against a real OPA, so Rego and Java agree on them.
package gitopshq.approval_test

import data.gitopshq.approval

samples := data.testdata.approval

# The samples a decision disagrees with, with what came out instead.
sample_mismatches contains {"case": name, "got": got, "expected": c.expected} if {
	some name, c in samples
	d := approval.decision with input as c.input
	got := {"outcome": d.outcome, "required_approvers": d.required_approvers}
	got != c.expected
}

test_every_shared_sample_gets_its_expected_outcome if {
	count(samples) >= 8
	print("sample mismatches:", sample_mismatches)
	count(sample_mismatches) == 0
}

test_samples_cover_every_outcome if {
	outcomes := {c.expected.outcome | some c in samples}
	outcomes == {"auto_approve", "require_approval", "deny", "break_glass"}
}

# ---- reasons a person can act on -----------------------------------------------

test_require_approval_reason_names_type_count_cluster_and_tier if {
	d := approval.decision with input as samples.bound_scale_requires_two.input
	d.reasons[0] == "scale requires 2 approvals on cluster prod-eu (tier:production): the cluster's approval settings list scale in require_approval"
	d.reasons[1] == "eligible approvers: members with role admin or owner, or members of team sre; never the requester"
	d.approver_roles == ["admin", "owner"]
	d.approver_teams == ["sre"]
}

test_default_production_reason_says_it_is_the_default if {
	d := approval.decision with input as samples.default_production_scale_requires_approval.input
	d.reasons[0] == "scale requires 1 approval on cluster prod-eu (tier:production): default for production clusters"
}

test_unlisted_type_reason_says_approval_is_the_safe_default if {
	d := approval.decision with input as samples.bound_restart_unlisted_requires_approval.input
	contains(d.reasons[0], "do not list restart, so approval is required")
}

test_auto_approve_reason if {
	d := approval.decision with input as samples.default_staging_scale_auto_approved.input
	d.reasons == ["scale is auto-approved on cluster staging-eu (tier:staging): default for non-production clusters"]
	d.required_approvers == 0
}

test_viewer_reason if {
	d := approval.decision with input as samples.viewer_denied.input
	d.reasons == ["requester victor@example.com has role viewer, and viewers cannot run commands"]
}

test_unknown_command_type_reason if {
	d := approval.decision with input as samples.unknown_command_type_denied.input
	d.reasons == [`command type "delete" is not one of refresh, resolve-drift, restart, rollback, scale, sync`]
}

# ---- production detection and defaults -------------------------------------------

test_environment_production_without_tier_label_is_production if {
	base := samples.default_staging_rollback_requires_approval.input
	doc := object.union(base, {"command": {"type": "restart"}, "cluster": {"environment": "production", "labels": {"tier": "gold"}}})
	d := approval.decision with input as doc
	d.outcome == "require_approval"
	contains(d.reasons[0], "(environment:production)")
}

test_staging_restart_is_auto_approved_by_default if {
	base := samples.default_staging_rollback_requires_approval.input
	d := approval.decision with input as object.union(base, {"command": {"type": "restart"}})
	d.outcome == "auto_approve"
}

test_missing_settings_key_behaves_like_null if {
	base := samples.default_production_scale_requires_approval.input
	d := approval.decision with input as object.remove(base, ["settings"])
	d.outcome == "require_approval"
	d.required_approvers == 1
	d.approver_roles == ["admin", "owner"]
	d.approver_teams == []
}

test_no_input_at_all_is_denied if {
	d := approval.decision
	d.outcome == "deny"
	some r in d.reasons
	startswith(r, "the requester is unknown")
}

test_member_with_unknown_role_is_denied if {
	base := samples.default_staging_scale_auto_approved.input
	d := approval.decision with input as object.union(base, {"requester": {"role": "intern"}})
	d.outcome == "deny"
	contains(d.reasons[0], `role "intern"`)
}

test_service_account_may_operate if {
	d := approval.decision with input as samples.default_production_sync_auto_approved.input
	d.outcome == "auto_approve"
}

# ---- bound settings ------------------------------------------------------------------

test_invalid_required_approvers_fall_back_to_one if {
	base := samples.bound_scale_requires_two.input
	every n in [0, -3, 1.5, "2", null] {
		d := approval.decision with input as object.union(base, {"settings": {"required_approvers": n}})
		d.required_approvers == 1
	}
}

test_teams_only_approvers if {
	base := samples.bound_scale_requires_two.input
	doc := object.union(base, {"settings": {"approver_roles": [], "approver_teams": ["sre", "dba"]}})
	d := approval.decision with input as doc
	d.approver_roles == []
	d.approver_teams == ["sre", "dba"]
	d.reasons[1] == "eligible approvers: members of team sre or dba; never the requester"
}

test_no_approvers_configured_falls_back_to_admin_and_owner if {
	base := samples.bound_scale_requires_two.input
	d := approval.decision with input as object.union(base, {"settings": {"approver_roles": [], "approver_teams": []}})
	d.approver_roles == ["admin", "owner"]
}

test_empty_settings_require_approval_for_everything if {
	base := samples.bound_sync_auto_approved.input
	every t in ["sync", "rollback", "restart", "scale"] {
		d := approval.decision with input as object.union(object.remove(base, ["settings"]), {"settings": {}, "command": {"type": t}})
		d.outcome == "require_approval"
		d.required_approvers == 1
	}
}

# ---- break-glass ---------------------------------------------------------------------

test_break_glass_reason_flags_the_bypass if {
	d := approval.decision with input as samples.break_glass_by_admin.input
	d.reasons == ["break-glass by ana@example.com on cluster prod-eu (tier:production): rollback runs at once without approval, is flagged, and goes to the approvals inbox for review"]
}

test_break_glass_not_enabled_says_so if {
	d := approval.decision with input as samples.break_glass_not_enabled_denied.input
	d.reasons == ["break-glass is not allowed on cluster prod-eu (no approval policy is bound to the cluster, and the default does not enable it)"]
}

test_break_glass_wrong_role_says_which_roles if {
	d := approval.decision with input as samples.break_glass_role_not_allowed_denied.input
	d.reasons == ["break-glass on cluster prod-eu is limited to roles admin, owner; requester alice@example.com has role member"]
}

test_break_glass_justification_is_trimmed_before_counting if {
	d := approval.decision with input as samples.break_glass_short_justification_denied.input
	d.reasons == ["break-glass needs a written justification of at least 20 characters (got 10)"]

	base := samples.break_glass_by_admin.input
	nineteen := approval.decision with input as object.union(base, {"command": {"break_glass": {"justification": "  1234567890123456789  "}}})
	nineteen.outcome == "deny"
	twenty := approval.decision with input as object.union(base, {"command": {"break_glass": {"justification": "12345678901234567890"}}})
	twenty.outcome == "break_glass"
}

test_break_glass_lists_every_failed_condition if {
	base := samples.break_glass_role_not_allowed_denied.input
	doc := object.union(base, {"command": {"break_glass": {"justification": "now"}}, "settings": {"break_glass": {"allowed": false}}})
	d := approval.decision with input as doc
	d.outcome == "deny"
	count(d.reasons) == 3
}

test_break_glass_default_roles_are_admin_and_owner if {
	base := samples.break_glass_by_admin.input
	no_roles := object.union(base, {"settings": {"break_glass": {"allowed": true, "roles": []}}})
	admin := approval.decision with input as no_roles
	admin.outcome == "break_glass"
	member := approval.decision with input as object.union(no_roles, {"requester": {"role": "member"}})
	member.outcome == "deny"
}

test_service_account_cannot_break_glass if {
	base := samples.break_glass_by_admin.input
	sa := {"id": "1e7c2f65-d183-40cf-b619-b3e051748f66", "type": "service_account", "name": "github-actions", "role": "", "teams": []}
	d := approval.decision with input as object.union(base, {"requester": sa})
	d.outcome == "deny"
	d.reasons == ["break-glass on cluster prod-eu is limited to roles admin, owner; requester github-actions has role none"]
}

test_viewer_cannot_break_glass_even_when_enabled if {
	base := samples.break_glass_by_admin.input
	doc := object.union(base, {"requester": {"role": "viewer"}, "settings": {"break_glass": {"roles": ["admin", "owner", "viewer"]}}})
	d := approval.decision with input as doc
	d.outcome == "deny"
}

# A hard refresh changes nothing in the cluster: auto-approved by default, on production too.
test_refresh_is_auto_approved_by_default_on_production if {
	sample := samples.default_production_scale_requires_approval.input
	d := approval.decision with input as object.union(sample, {"command": object.union(sample.command, {"type": "refresh"})})
	d.outcome == "auto_approve"
	d.required_approvers == 0
}

# resolve-drift re-applies what Git holds: auto-approved by default like sync, on production too,
# and gated when the cluster's settings list it.
test_resolve_drift_is_auto_approved_by_default_on_production if {
	sample := samples.default_production_scale_requires_approval.input
	d := approval.decision with input as object.union(sample, {"command": object.union(sample.command, {"type": "resolve-drift"})})
	d.outcome == "auto_approve"
}

test_resolve_drift_requires_approval_when_the_settings_list_it if {
	sample := samples.bound_scale_requires_two.input
	doc := object.union(sample, {"command": {"type": "resolve-drift"}, "settings": {"require_approval": ["resolve-drift"]}})
	d := approval.decision with input as doc
	d.outcome == "require_approval"
	d.required_approvers == 2
}

# ---- the protocol's command types --------------------------------------------------

# docs/command-types.json, generated from command_types.proto and loaded by
# tools/policy-test.sh as data.command_types.
proto_types := data.command_types.types

proto_names(required, env) := {t.name |
	some t in proto_types
	t.approvalRequiredByDefault[env] == required
}

test_command_types_are_the_protocols if {
	count(proto_types) > 0
	approval.command_types == {t.name | some t in proto_types}
}

test_production_defaults_are_the_protocols if {
	{n | some n in approval.production_defaults.require_approval} == proto_names(true, "production")
	{n | some n in approval.production_defaults.auto_approve} == proto_names(false, "production")
}

test_non_production_defaults_are_the_protocols if {
	{n | some n in approval.non_production_defaults.require_approval} == proto_names(true, "nonProduction")
	{n | some n in approval.non_production_defaults.auto_approve} == proto_names(false, "nonProduction")
}
