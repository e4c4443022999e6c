package system.authz_test

import data.system.authz

hub_token_sha256 := crypto.sha256("the-hub-token")

org := "0b6f2a4e-1c3d-4e5f-8a9b-0c1d2e3f4a5b"

org_root := "org_0b6f2a4e1c3d4e5f8a9b0c1d2e3f4a5b"

hub(method, path) if {
	authz.allow with input as {"identity": "the-hub-token", "method": method, "path": path}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_the_hub_token_may_upload_read_and_remove_its_policies if {
	hub("PUT", ["v1", "policies", "orgs", org, "gitopshq", "approval"])
	hub("GET", ["v1", "policies", "orgs", org, "gitopshq", "approval"])
	hub("DELETE", ["v1", "policies", "orgs", org, "gitopshq", "approval"])
	hub("GET", ["v1", "policies"])
}

test_the_hub_token_may_upload_a_what_ifs_draft if {
	hub("PUT", ["v1", "policies", "whatif", "1764300000000", "0123456789abcdef0123456789abcdef", "gitopshq", "my-policy"])
	hub("POST", ["v1", "data", "gitopshq_whatif_0123456789abcdef0123456789abcdef", org_root, "gitopshq", "my-policy", "gitopshq_result"])
}

test_the_hub_token_may_ask_for_decisions if {
	hub("POST", ["v1", "data", org_root, "gitopshq", "approval", "gitopshq_result"])
	hub("POST", ["v1", "data", org_root, "gitopshq", "approval", "decision"])
}

test_the_hub_token_may_write_the_freeze_windows if {
	hub("PUT", ["v1", "data", org_root, "gitopshq_data", "freeze_windows"])
}

test_the_hub_token_may_remove_a_module_under_any_id if {
	hub("DELETE", ["v1", "policies", "planted", "x"])
}

test_the_hub_token_may_not_write_any_other_data_document if {
	not hub("PUT", ["v1", "data"])
	not hub("PUT", ["v1", "data", "gitopshq_opa", "token_sha256"])
	not hub("PATCH", ["v1", "data"])
	not hub("PATCH", ["v1", "data", org_root, "gitopshq_data", "freeze_windows"])
	not hub("DELETE", ["v1", "data", org_root, "gitopshq_data", "freeze_windows"])
	not hub("PUT", ["v1", "data", org_root, "gitopshq_data", "teams"])
	not hub("PUT", ["v1", "data", org_root, "gitopshq", "approval", "decision"])
	not hub("PUT", ["v1", "data", org_root, "gitopshq_data", "freeze_windows", "0"])
	not hub("PUT", ["v1", "data", "org_0B6F2A4E1C3D4E5F8A9B0C1D2E3F4A5B", "gitopshq_data", "freeze_windows"])
}

test_the_hub_token_may_not_upload_under_an_id_the_hub_does_not_manage if {
	not hub("PUT", ["v1", "policies", "planted", "x"])
	not hub("PUT", ["v1", "policies", "gitopshq", "approval"])
	not hub("PUT", ["v1", "policies", "orgs", org, "gitopshq", "approval", "extra"])
	not hub("PUT", ["v1", "policies", "orgs", "not-a-uuid", "gitopshq", "approval"])
	not hub("PUT", ["v1", "policies", "orgs", org, "system", "authz"])
	not hub("PUT", ["v1", "policies", "whatif", "now", "0123456789abcdef0123456789abcdef", "gitopshq", "x"])
	not hub("PUT", ["v1", "policies"])
}

test_the_hub_token_may_not_read_data_query_or_compile if {
	not hub("GET", ["v1", "data"])
	not hub("GET", ["v1", "data", "gitopshq_opa", "token_sha256"])
	not hub("POST", ["v1", "data", "gitopshq_opa", "token_sha256"])
	not hub("POST", ["v1", "data"])
	not hub("POST", ["v1", "query"])
	not hub("GET", ["v1", "query"])
	not hub("POST", ["v1", "compile"])
	not hub("POST", [""])
	not hub("GET", ["v1", "config"])
	not hub("GET", ["v1", "status"])
	not hub("GET", ["v1", "policies", "planted", "x"])
}

test_another_token_is_refused if {
	not authz.allow with input as {"identity": "guess", "method": "PUT", "path": ["v1", "policies", "orgs", org, "gitopshq", "approval"]}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_no_token_is_refused if {
	not authz.allow with input as {"method": "POST", "path": ["v1", "data", org_root, "gitopshq", "approval", "gitopshq_result"]}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_no_configured_token_refuses_everyone if {
	not authz.allow with input as {"identity": "", "method": "GET", "path": ["v1", "policies"]}
}

test_the_health_check_stays_open_for_probes if {
	authz.allow with input as {"method": "GET", "path": ["health"]}
}
