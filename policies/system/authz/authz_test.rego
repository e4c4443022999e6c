package system.authz_test

import data.system.authz

hub_token_sha256 := crypto.sha256("the-hub-token")

test_the_hub_token_may_use_the_api if {
	authz.allow with input as {"identity": "the-hub-token", "method": "PUT", "path": ["v1", "policies", "gitopshq", "approval"]}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_another_token_is_refused if {
	not authz.allow with input as {"identity": "guess", "method": "PUT", "path": ["v1", "policies", "gitopshq", "approval"]}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_no_token_is_refused if {
	not authz.allow with input as {"method": "POST", "path": ["v1", "data", "gitopshq", "approval"]}
		with data.gitopshq_opa.token_sha256 as hub_token_sha256
}

test_no_configured_token_refuses_everyone if {
	not authz.allow with input as {"identity": "", "method": "GET", "path": ["v1", "data"]}
}

test_the_health_check_stays_open_for_probes if {
	authz.allow with input as {"method": "GET", "path": ["health"]}
}
