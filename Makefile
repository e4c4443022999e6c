# GitOpsHQ developer entry points. `make` alone lists them.
#
# The real work is in tools/ (see tools/README.md); this file only wires the
# steps together so `make run` and `make test` behave the same for everyone,
# on a laptop and in CI (.ci/run).

SHELL := /bin/bash
.SHELLFLAGS := -euo pipefail -c
.DEFAULT_GOAL := help
MAKEFLAGS += --no-print-directory

# Extra Maven arguments, e.g. `make test MVN_ARGS="-pl agent -am"`.
MVN_ARGS ?=

# The database the Java integration tests use (created by tools/dev/postgres.sh).
export GITOPSHQ_TEST_DB_URL ?= jdbc:postgresql://127.0.0.1:5432/gitopshq_test
export GITOPSHQ_TEST_DB_USER ?= gitopshq
export GITOPSHQ_TEST_DB_PASSWORD ?= gitopshq

# A JDK >= 21 (the machine's default java may be 17). tools/lib/java.sh picks
# JAVA_HOME when it is new enough, else the newest one under /usr/lib/jvm; the
# scripts call the same finder, so everything agrees on one JDK. When there is
# none, nothing is exported here and the first step that needs Java prints how
# to install one.
JAVA_HOME_FOUND := $(shell tools/lib/java.sh 2>/dev/null)
ifneq ($(JAVA_HOME_FOUND),)
export JAVA_HOME := $(JAVA_HOME_FOUND)
export PATH := $(JAVA_HOME_FOUND)/bin:$(PATH)
endif

.PHONY: help run run-ha test-ha test-failover test test-fast fast-java fast-rego fast-ui test-it test-e2e build tools policy-test ui-test lint fmt clean reset bench-delivery images openapi command-types fuzz

help: ## list the targets
	@echo "GitOpsHQ: make <target>"
	@echo
	@awk 'BEGIN { FS = ":.*## " } /^[a-z][a-z0-9-]*:.*## / { printf "  %-15s %s\n", $$1, $$2 }' $(MAKEFILE_LIST)
	@echo
	@echo "Java: $(if $(JAVA_HOME_FOUND),$(JAVA_HOME_FOUND),none >= 21 found (run 'tools/lib/java.sh' for how to get one))"
	@echo "Tool cache: $${GITOPSHQ_TOOLS_CACHE:-$$HOME/.cache/gitopshq/tools}"

run: ## start the dev stack (PostgreSQL, Temporal, OPA, a demo Kubernetes cluster, hub, demo agent); Ctrl-C stops it
	@tools/dev/run.sh

# The HA profile: the Temporal server (not the dev server) on PostgreSQL and REPLICAS hub replicas
# behind HAProxy (tools/dev/run-ha.sh; docs/operations.md#ha-profile). Not part of make test.
REPLICAS ?= 3
run-ha: ## the HA profile: Temporal server on PostgreSQL, OPA, hub replicas (REPLICAS=3) behind HAProxy; Ctrl-C stops it
	@tools/dev/run.sh --ha --replicas $(REPLICAS)

# On demand only (a few minutes): never part of test or .ci/run.
test-ha: ## smoke test of the HA profile: every replica answers through HAProxy, workflows run on the Temporal server, a killed replica is routed around
	@tools/dev/test-ha.sh

test-failover: ## failover test of the HA profile: kill -9 the replica holding a real agent while 200 simulated agents, a log follow, inspection, Git, a command awaiting approval and a release run
	@tools/dev/test-failover.sh

# PostgreSQL up with its databases: gitopshq, gitopshq_test, and the one
# GITOPSHQ_TEST_DB_URL names when it points at another database on this server.
# Then the Java suite with the real OPA and Temporal binaries (the hub-restart
# tests run on the real Temporal dev server), then the Rego checks.
test: ## the whole test suite: formatting and shell checks, the UI's ESLint and Prettier, Maven verify (unit + integration), the Rego checks/tests, the UI's Vitest and Playwright tests
	@echo "==> formatting (google-java-format through Spotless; 'make fmt' fixes it)"
	@tools/mvn.sh -q spotless:check
	@tools/lint-shell.sh
	@tools/ui.sh lint
	@db="$${GITOPSHQ_TEST_DB_URL##*/}"; db="$${db%%\?*}"; \
	  tools/dev/postgres.sh gitopshq gitopshq_test $$([ "$$db" = gitopshq_test ] || echo "$$db")
	@tools/build-tools.sh all
	@tools/build-tools.sh flux
	@tools/build-tools.sh argocd
	@tools/build-tools.sh helm
	@tools/ui.sh build
	@export GITOPSHQ_OPA_BIN="$$(tools/bin-path.sh opa)" GITOPSHQ_TEMPORAL_BIN="$$(tools/bin-path.sh temporal)" \
	  GITOPSHQ_HELM_BIN="$$(tools/bin-path.sh helm)"; \
	  echo "==> mvn verify$(if $(MVN_ARGS), $(MVN_ARGS)) (GITOPSHQ_OPA_BIN=$$GITOPSHQ_OPA_BIN GITOPSHQ_TEMPORAL_BIN=$$GITOPSHQ_TEMPORAL_BIN)"; \
	  tools/mvn.sh verify $(MVN_ARGS)
	@GITOPSHQ_OPA_BIN="$$(tools/bin-path.sh opa)" tools/policy-test.sh
	@tools/images.sh
	@tools/ui.sh test
	@tools/ui.sh e2e

# The test tiers (README "Tests"): unit = *Test without a JUnit tag; integration = *Test tagged
# "integration" and *IT without a tag (PostgreSQL, in-process hubs, OPA); e2e = *IT tagged "e2e"
# (a real kube-apiserver, Flux or Argo CD, or hub processes killed and restarted). The pom's
# test.groups / test.excludedGroups pick them; `make test` runs every tier and everything else.
#
# test-fast is the developer's loop: offline, no clean, nothing built that it does not test (no
# Go tools, no UI bundle, no images, no jars). Java, Rego and Vitest run side by side, each part's
# output printed when it is done. Java: one `test-compile` of every module (incremental), then two
# Mavens at once that copy no resources (-Dfast.tests, the pom's profiles), one for the tests of api
# and cli, one for those of every other module, each with its modules side by side (-T 1C): in one
# reactor the hub's tests would wait for those of every module it builds on. The Java tests run at
# nice 5: Vitest's jsdom tests wait on rendering with 1-5 s timeouts that a starved CPU misses, so
# they come first for the CPU; the Java tests wait on nothing that short. MVN_ARGS naming modules
# (-pl, -rf) run one Maven as before. The tools already in the cache are used: the render and chart
# tests run the render worker and helm, the Rego tests opa.
test-fast: ## the quick loop (under 2 min on 2 cores): Java unit tests (no ITs, offline), opa test and the UI's Vitest side by side; builds nothing else
	@$(MAKE) -j3 --output-sync=target fast-java fast-rego fast-ui

FAST_JAVA_HUB := api,cli
# C1 only and the serial collector, for Maven and the test JVMs: short-lived JVMs on 2 cores spend
# less CPU compiling and collecting (measured idle: Java part 124 s -> 86 s, CPU 239 s -> 154 s).
FAST_JVM := -XX:TieredStopAtLevel=1 -XX:+UseSerialGC
FAST_MVN = MAVEN_OPTS="$${MAVEN_OPTS:-} $(FAST_JVM)" nice -n 5 tools/mvn.sh -q -o -T 1C
FAST_TEST_ARGS = -Dtest.excludedGroups=integration,e2e '-Dtest.jvm.extra=$(FAST_JVM)' $(MVN_ARGS)

fast-java:
	@echo "==> unit tests: mvn -o -T 1C test, tags integration and e2e excluded$(if $(MVN_ARGS), ($(MVN_ARGS)))"
	@for t in render-worker helm; do \
	  v=GITOPSHQ_$$(echo "$$t" | tr a-z- A-Z_)_BIN; \
	  if [ -z "$${!v:-}" ] && p=$$(tools/bin-path.sh "$$t" 2>/dev/null); then export "$$v=$$p"; fi; \
	done; \
	case " $(MVN_ARGS) " in \
	  *" -pl"*|*" --projects"*|*" -rf"*|*" --resume-from"*) exec $(FAST_MVN) test $(FAST_TEST_ARGS);; \
	esac; \
	$(FAST_MVN) test-compile $(MVN_ARGS) || exit; \
	$(FAST_MVN) test -pl $(FAST_JAVA_HUB) -am -Dfast.tests=hub $(FAST_TEST_ARGS) & hub=$$!; \
	$(FAST_MVN) test -pl '$(shell echo '$(FAST_JAVA_HUB)' | sed 's/[^,]*/!&/g')' -Dfast.tests=rest $(FAST_TEST_ARGS); rest=$$?; \
	wait $$hub && exit $$rest

fast-rego:
	@if opa=$${GITOPSHQ_OPA_BIN:-$$(tools/bin-path.sh opa 2>/dev/null)}; then \
	  GITOPSHQ_OPA_BIN="$$opa" tools/policy-test.sh; \
	else echo "==> policy tests skipped: opa is not built (make tools builds it)"; fi

fast-ui:
	@if [ -d ui/node_modules ]; then echo "==> ui: vitest"; cd ui && npm run --silent gen:api >/dev/null && npx --no-install vitest run; \
	else echo "==> Vitest skipped: ui/node_modules is missing (cd ui && npm ci)"; fi

# Unit and integration tiers: what `make test` runs in Maven but the e2e tests, and nothing else.
test-it: ## Java unit + integration tests (mvn verify without the e2e tier); PostgreSQL, OPA and Temporal as for make test
	@db="$${GITOPSHQ_TEST_DB_URL##*/}"; db="$${db%%\?*}"; \
	  tools/dev/postgres.sh gitopshq_test $$([ "$$db" = gitopshq_test ] || echo "$$db")
	@for t in opa temporal render-worker helm; do tools/build-tools.sh "$$t"; done
	@export GITOPSHQ_OPA_BIN="$$(tools/bin-path.sh opa)" GITOPSHQ_TEMPORAL_BIN="$$(tools/bin-path.sh temporal)" \
	  GITOPSHQ_HELM_BIN="$$(tools/bin-path.sh helm)"; \
	  echo "==> mvn verify, tag e2e excluded$(if $(MVN_ARGS), ($(MVN_ARGS)))"; \
	  tools/mvn.sh verify -Dtest.excludedGroups=e2e $(MVN_ARGS)

# Only the e2e tier (surefire finds none of its tests; failsafe runs the tagged ITs).
test-e2e: ## only the e2e ITs: a real kube-apiserver, Flux, Argo CD, hub processes killed and restarted
	@db="$${GITOPSHQ_TEST_DB_URL##*/}"; db="$${db%%\?*}"; \
	  tools/dev/postgres.sh gitopshq_test $$([ "$$db" = gitopshq_test ] || echo "$$db")
	@tools/build-tools.sh all
	@tools/build-tools.sh flux
	@tools/build-tools.sh argocd
	@tools/build-tools.sh helm
	@export GITOPSHQ_OPA_BIN="$$(tools/bin-path.sh opa)" GITOPSHQ_TEMPORAL_BIN="$$(tools/bin-path.sh temporal)" \
	  GITOPSHQ_HELM_BIN="$$(tools/bin-path.sh helm)"; \
	  echo "==> mvn verify, tag e2e only$(if $(MVN_ARGS), ($(MVN_ARGS)))"; \
	  tools/mvn.sh verify -Dtest.groups=e2e $(MVN_ARGS)

ui-test: ## only the web UI's tests: Vitest, then Playwright in Debian's chromium against a stack it starts
	@tools/ui.sh build
	@tools/ui.sh test
	@tools/build-tools.sh all
	@tools/dev/build-java.sh --if-changed
	@tools/ui.sh e2e

# The committed OpenAPI document is what a real hub serves: OpenApiDocumentIT starts one and,
# with -Dopenapi.write=true, writes /v3/api-docs.yaml to docs/openapi.yaml (without it, the test
# fails when they differ, as it does in `make test`).
openapi: ## regenerate docs/openapi.yaml from the hub's /v3/api-docs.yaml (then commit it)
	@db="$${GITOPSHQ_TEST_DB_URL##*/}"; db="$${db%%\?*}"; tools/dev/postgres.sh "$$db" >/dev/null
	@tools/mvn.sh -q -pl api -am verify -Dtest=none -Dit.test=OpenApiDocumentIT -Dsurefire.failIfNoSpecifiedTests=false -Dfailsafe.failIfNoSpecifiedTests=false -Dopenapi.write=true
	@echo "==> docs/openapi.yaml regenerated ($$(git diff --shortstat -- docs/openapi.yaml | sed 's/^ *//' || true))"

command-types: ## regenerate docs/command-types.json from proto/.../command_types.proto (then commit it)
	@tools/mvn.sh -q -pl proto verify -Dtest=CommandTypesJsonTest -Dsurefire.failIfNoSpecifiedTests=false -Dcommand-types.write=true
	@echo "==> docs/command-types.json regenerated ($$(git diff --shortstat -- docs/command-types.json | sed 's/^ *//' || true))"

# CI runs it after `make test` (.ci/run), with the jars that built.
fuzz: ## Schemathesis against a hub stack on free ports (tools/fuzz.sh): no 5xx, every answer as /v3/api-docs says
	@tools/fuzz.sh

policy-test: ## only the Rego checks: opa fmt, opa check --strict, opa test
	@tools/build-tools.sh opa
	@tools/policy-test.sh

lint: ## the static checks alone: Java formatting, shell scripts, the UI's ESLint and Prettier, opa fmt/check/test
	@echo "==> formatting (google-java-format through Spotless; 'make fmt' fixes it)"
	@tools/mvn.sh -q spotless:check
	@tools/lint-shell.sh
	@tools/ui.sh lint
	@tools/policy-test.sh

fmt: ## format the Java sources (google-java-format), the UI's (Prettier) and the Rego policies (opa fmt)
	@tools/mvn.sh -q spotless:apply
	@tools/ui.sh format
	@tools/build-tools.sh opa
	@find policies -name target -prune -o -name '*.rego' -print0 | xargs -0 -r "$$(tools/bin-path.sh opa)" fmt -w

build: ## build all Java artifacts (mvn -DskipTests install)
	@tools/dev/build-java.sh

images: ## the hub and agent OCI images as tarballs (api/target/hub-image.tar, agent/target/agent-image.tar), without Docker; checked as user 65532
	@tools/images.sh

tools: ## build (or find cached) the opa, temporal and Kubernetes (kube-apiserver, controller-manager, scheduler, kwok) binaries
	@tools/build-tools.sh all

# On demand only: never part of test or build. Options go through ARGS, e.g.
# `make bench-delivery ARGS="--tenants 5"`; see bench/README.md.
bench-delivery: ## delivery benchmark: render + commit 1,000 units, next to the helm and git CLIs (bench/run-delivery.sh)
	@bench/run-delivery.sh $(ARGS)

clean: ## remove Maven build output (target/); keeps the dev-stack state in .gitopshq/
	@echo "==> mvn clean"
	@tools/mvn.sh -q clean $(MVN_ARGS)
	@rm -f .gitopshq/build.stamp

reset: ## wipe the dev-stack state: .gitopshq/ data, logs, demo agent, and the gitopshq database
	@tools/dev/reset.sh
