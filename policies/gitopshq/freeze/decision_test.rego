# METADATA
# title: Tests for gitopshq.freeze
# description: |
#   Runs every shared sample in policies/testdata/freeze/<case>/data.json
#   (loaded by `opa test policies/` as data.testdata.freeze.<case>): each
#   carries the freeze windows, given to the policy as
#   data.gitopshq_data.freeze_windows, the input and the expected decision.
#   The same samples are run by the Java OpaClientIT against a real OPA with
#   the windows written through OPA's data API, as the hub writes them.
package gitopshq.freeze_test

import data.gitopshq.freeze

samples := data.testdata.freeze

windows := samples.production_in_window_blocked.windows

year_end := windows[0]

# The samples a decision disagrees with, with what came out instead.
sample_mismatches contains {"case": name, "got": got, "expected": c.expected} if {
	some name, c in samples
	d := freeze.decision with input as c.input with data.gitopshq_data.freeze_windows as c.windows
	got := {"frozen": d.frozen, "blocked": d.blocked}
	got != c.expected
}

test_every_shared_sample_gets_its_expected_decision if {
	count(samples) >= 10
	print("sample mismatches:", sample_mismatches)
	count(sample_mismatches) == 0
}

test_samples_cover_every_combination if {
	got := {[c.expected.frozen, c.expected.blocked] | some c in samples}
	got == {[true, true], [true, false], [false, false]}
}

# The decision for a sample, with the sample's windows as the data.
decide(sample) := d if {
	d := freeze.decision with input as samples[sample].input
		with data.gitopshq_data.freeze_windows as samples[sample].windows
}

# ---- freeze blocks -------------------------------------------------------------------

test_in_window_blocks_and_names_environment_end_and_reason if {
	d := decide("production_in_window_blocked")
	d.frozen
	d.blocked
	d.windows == [year_end.id]
	d.windows_loaded
	d.reasons == [
		"production is frozen until 2026-12-27T00:00:00Z: year-end freeze",
		"the promotion is blocked until the freeze ends, or unless it is requested as break-glass with a written justification",
	]
}

test_start_is_inclusive_and_end_exclusive if {
	decide("production_at_window_start_blocked").blocked
	not decide("production_at_window_end_not_frozen").frozen
	not decide("production_before_window_not_frozen").frozen
}

test_times_with_an_offset_compare_as_instants if {
	decide("production_window_time_with_offset_blocked").blocked

	# 2026-12-27T01:30:00+01:00 is the window's end in UTC.
	base := samples.production_in_window_blocked.input
	d := freeze.decision with input as object.union(base, {"time": "2026-12-27T01:00:00+01:00"})
		with data.gitopshq_data.freeze_windows as windows
	not d.frozen
}

test_outside_every_window_says_so if {
	d := decide("production_before_window_not_frozen")
	d.frozen == false
	d.blocked == false
	d.windows == []
	d.reasons == ["no freeze window covers production at 2026-12-17T23:59:59Z"]
}

# ---- scope: environment and project -----------------------------------------------------

test_another_environment_is_not_affected if {
	d := decide("staging_during_production_freeze_not_frozen")
	not d.frozen
	d.reasons == ["no freeze window covers staging at 2026-12-20T10:00:00Z"]
}

test_a_promotion_touching_a_frozen_environment_is_blocked_and_the_reason_names_only_it if {
	d := decide("staging_and_production_promotion_blocked")
	d.blocked
	d.reasons[0] == "production is frozen until 2026-12-27T00:00:00Z: year-end freeze"
}

test_a_project_window_covers_every_environment_of_that_project if {
	d := decide("project_window_blocks_every_environment_of_the_project")
	d.blocked
	d.reasons[0] == "dev is frozen for project shop until 2026-03-10T20:00:00Z: spring sale launch"
	d.reasons[1] == "the deployment is blocked until the freeze ends, or unless it is requested as break-glass with a written justification"
}

test_another_project_is_not_affected if {
	d := decide("project_window_other_project_not_frozen")
	not d.frozen
}

test_an_empty_environment_and_project_cover_everything if {
	d := decide("organization_window_blocks_everything")
	d.blocked
	d.reasons[0] == "dev is frozen until 2026-05-02T00:00:00Z: data-center move"
	startswith(d.reasons[1], "the rollback is blocked")

	base := samples.organization_window_blocks_everything.input
	both := freeze.decision with input as object.union(base, {"environments": [{"name": "staging"}, {"name": "production"}]})
		with data.gitopshq_data.freeze_windows as windows
	both.reasons[0] == "staging, production are frozen until 2026-05-02T00:00:00Z: data-center move"
}

test_null_or_missing_scope_means_every_one if {
	base := samples.production_in_window_blocked.input
	null_env := object.union(year_end, {"environment": null})
	d := freeze.decision with input as object.union(base, {"environments": [{"name": "dev"}]})
		with data.gitopshq_data.freeze_windows as [null_env]
	d.blocked
	no_fields := object.remove(year_end, ["environment", "project"])
	e := freeze.decision with input as object.union(base, {"environments": [{"name": "dev"}], "project": {"name": "billing"}})
		with data.gitopshq_data.freeze_windows as [no_fields]
	e.blocked
}

test_overlapping_windows_are_all_reported_by_end_time if {
	base := samples.production_in_window_blocked.input
	short := object.union(year_end, {"id": "short", "ends_at": "2026-12-21T00:00:00Z", "reason": "release train paused"})
	d := freeze.decision with input as base with data.gitopshq_data.freeze_windows as array.concat(windows, [short])
	d.windows == sort([year_end.id, "short"])
	d.reasons[0] == "production is frozen until 2026-12-21T00:00:00Z: release train paused"
	d.reasons[1] == "production is frozen until 2026-12-27T00:00:00Z: year-end freeze"
}

test_no_windows_means_nothing_is_frozen if {
	d := freeze.decision with input as samples.production_in_window_blocked.input
		with data.gitopshq_data.freeze_windows as []
	not d.frozen
	not d.blocked
	d.windows_loaded
}

# ---- break-glass -----------------------------------------------------------------------

test_break_glass_with_justification_passes_but_stays_frozen if {
	d := decide("break_glass_with_justification_passes")
	d.frozen
	not d.blocked
	d.windows == [year_end.id]
	d.reasons == [
		"production is frozen until 2026-12-27T00:00:00Z: year-end freeze",
		"break-glass overrides the freeze for this promotion; justification: payment provider outage, hotfix INC-4177",
	]
}

test_break_glass_without_justification_does_not_pass if {
	d := decide("break_glass_without_justification_blocked")
	d.blocked
	d.reasons[1] == "break-glass was requested without a justification, so the freeze blocks this promotion"

	base := samples.break_glass_without_justification_blocked.input
	missing := freeze.decision with input as object.union(base, {"break_glass": {"justification": null}})
		with data.gitopshq_data.freeze_windows as windows
	missing.blocked
}

test_a_justification_alone_is_not_break_glass if {
	decide("justification_without_break_glass_blocked").blocked
}

test_break_glass_outside_a_freeze_changes_nothing if {
	base := samples.break_glass_with_justification_passes.input
	d := freeze.decision with input as object.union(base, {"environments": [{"name": "staging"}]})
		with data.gitopshq_data.freeze_windows as windows
	not d.frozen
	not d.blocked
	count(d.reasons) == 1
}

# ---- failing closed --------------------------------------------------------------------

test_windows_not_loaded_block_even_break_glass if {
	d := freeze.decision with input as samples.break_glass_with_justification_passes.input
	d.windows_loaded == false
	d.frozen
	d.blocked
	startswith(d.reasons[0], "the freeze windows are not loaded into OPA yet")
}

test_an_unreadable_time_blocks if {
	base := samples.production_before_window_not_frozen.input
	every t in ["next tuesday", "2026-12-17", 1766000000, null] {
		d := freeze.decision with input as object.union(base, {"time": t}) with data.gitopshq_data.freeze_windows as windows
		d.blocked
	}
	d := freeze.decision with input as object.union(base, {"time": "next tuesday"}) with data.gitopshq_data.freeze_windows as windows
	d.reasons == [`input.time "next tuesday" is not an RFC 3339 time, so every deployment is treated as frozen`]
}

test_a_window_with_unreadable_times_applies if {
	base := samples.production_before_window_not_frozen.input
	broken := object.union(year_end, {"starts_at": "soon"})
	d := freeze.decision with input as base with data.gitopshq_data.freeze_windows as [broken]
	d.frozen
	d.blocked
	d.windows == [year_end.id]
	d.reasons[0] == "production is frozen by window 0d6c2b1e-7a3f-4c59-9e8d-1b2a3c4d5e01, whose starts_at or ends_at is not an RFC 3339 time (such a window applies at all times until it is fixed): year-end freeze"

	# Out of scope, it does not matter.
	staging := freeze.decision with input as object.union(base, {"environments": [{"name": "staging"}]})
		with data.gitopshq_data.freeze_windows as [broken]
	not staging.frozen
}

# ---- commands --------------------------------------------------------------------------

test_a_command_in_a_window_holding_its_type_is_blocked_and_named if {
	d := decide("command_scale_in_window_blocked")
	d.frozen
	d.blocked

	# The shop window holds every command type but is one project's: it covers no command.
	d.windows == ["c1a2b3c4-0000-4000-8000-000000000c01"]
	d.reasons == [
		"cluster prod-eu (environment production) is frozen for restart, scale commands until 2026-12-27T00:00:00Z: year-end freeze",
		"the scale command is blocked until the freeze ends, or unless it is requested as break-glass with a written justification",
	]
}

test_break_glass_lets_a_frozen_command_through_with_its_justification if {
	d := decide("command_restart_break_glass_with_justification_passes")
	d.frozen
	not d.blocked
	d.reasons[1] == "break-glass overrides the freeze for this restart command; justification: pods wedged after the certificate rotation"
}

test_a_command_type_the_window_does_not_hold_passes if {
	d := decide("command_type_not_covered_not_frozen")
	not d.frozen
	not d.blocked
	d.reasons == ["no freeze window covers sync commands on cluster prod-eu at 2026-12-20T10:00:00Z"]
}

test_a_window_for_all_commands_covers_a_cluster_without_environment if {
	d := decide("command_all_types_window_blocks_every_cluster")
	d.blocked
	startswith(d.reasons[0], "cluster prod-eu is frozen for every command until 2026-05-02T00:00:00Z")
}

test_a_window_without_command_types_freezes_deployments_only if {
	not decide("command_deployments_only_window_not_frozen").frozen
	d := freeze.decision with input as object.union(samples.command_deployments_only_window_not_frozen.input, {"action": "deploy", "environments": [{"name": "staging"}]})
		with data.gitopshq_data.freeze_windows as samples.command_deployments_only_window_not_frozen.windows
	d.blocked
}

test_a_command_is_frozen_only_while_the_window_lasts if {
	not decide("command_after_window_not_frozen").frozen
}
