#!/usr/bin/env bash
# Issue 24's verification benchmark: from POST …/releases until every cluster runs the release
# (the deployment is `deployed` only once Flux reports its commit applied and healthy), with the
# hub's reconcile request on commit against Flux's own poll at a 1-minute interval, in one run.
#
#   bench/run-verify-latency.sh [--releases 10] [--warmup 1] [--poll-ms 100] [--timeout-seconds 240]
#
# Starts an isolated stack (bench/lib/stack.sh: fresh PostgreSQL database gitopshq_bench,
# Temporal, OPA, the hub on 127.0.0.1:18080 with GITOPSHQ_PUBLIC_URL there, so Flux fetches from
# it on loopback) and a real control plane with Flux's source-controller and kustomize-controller
# (tools/dev/kube.sh start --with-flux), registers cluster "bench" and starts one real agent
# (capabilities observe,adapter.wire) with the control plane's ADMIN kubeconfig: simpler than the
# chart's RBAC, and the agent's permissions do not change what is timed. The namespace bench-acme
# is made beforehand as admin, so the releases carry no cluster-scoped object (which the shipped
# release policy sends for approval). Then dev.gitopshq.bench.VerifyLatencyBench:
#
#   setup    environment bench-dev (verified, 300 s timeout) and bench-dev-last (so bench-dev is
#            not the organization's last one, which needs approval), tenant acme, a manifest
#            bundle with one Deployment, project bench-shop bound to the cluster in flux mode;
#   phase A  the hub as shipped (GITOPSHQ_ADAPTER_RECONCILE_ON_COMMIT=true, interval 5m): each
#            round changes the Deployment's image tag in the bundle, waits for the delivery
#            generation (not timed), then times POST /releases until GET …/deployments/{id}
#            (every 100 ms) shows `deployed`;
#   phase B  the hub restarted with GITOPSHQ_ADAPTER_RECONCILE_ON_COMMIT=false and
#            GITOPSHQ_ADAPTER_INTERVAL=1m; the adapters are rewired (POST …/adapters/rewire) and
#            the GitRepository and Kustomization are checked to have interval 1m before the same
#            rounds run again: now only Flux's own poll brings the commit in. Each round first
#            pauses a random 0-60 s (not timed, fixed seed) so that releases land at random points
#            of the poll cycle; back to back, each would come just after a poll and wait ~60 s.
#
# Both phases also read the Flux controllers' logs to split each release's time: commits
# written, artifact stored, applied, Flux Ready (after its health checks), verified by the hub.
#
# Prints the tables and writes bench/results/verify-latency-<UTC time>.json. Stops everything
# it started on exit, also on failure or Ctrl-C. A round of phase B takes ~65 s (pause and wait
# for the poll together make one interval): the defaults take ~17 minutes on 2 cores.
#
# Needs `make build` (the jars), `make tools` (opa, temporal) and the Flux controllers
# (tools/build-tools.sh flux; kube.sh builds them when missing). See bench/README.md.
set -euo pipefail
BENCH_KUBE=real
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly PROJECT=bench-shop ENVIRONMENT=bench-dev TENANT=acme NAMESPACE=bench-acme

kc() { kubectl --kubeconfig "${REAL_KUBECONFIG}" "$@"; }

# The hub's adapter settings: <reconcile on commit> <interval>.
hub_adapter_env() {
  HUB_EXTRA_ENV=(GITOPSHQ_PUBLIC_URL="${HUB_URL}"
    GITOPSHQ_ADAPTER_RECONCILE_ON_COMMIT="$1" GITOPSHQ_ADAPTER_INTERVAL="$2")
}

# Registers cluster "bench" and starts the agent with adapter.wire against the real control plane.
start_wiring_agent() {
  local reg_token
  api POST /api/v2/clusters "{\"name\":\"${BENCH_CLUSTER}\"}"
  api_expect 201 "registering cluster ${BENCH_CLUSTER}"
  CLUSTER_ID=$(jq -r '.cluster.id' <<<"${API_BODY}")
  reg_token=$(jq -r '.registrationToken' <<<"${API_BODY}")
  await_real_kube
  grep -q '^flux ready ' "${LOG_DIR}/kube.log" || die "Flux did not start; see ${LOG_DIR}/kube.log"
  kc create namespace "${NAMESPACE}" >/dev/null
  start_proc agent env \
    GITOPSHQ_HUB_ADDRESS="${HOST}:${HUB_GRPC_PORT}" \
    GITOPSHQ_HUB_PLAINTEXT=true \
    GITOPSHQ_IDENTITY_STORE_MODE=file \
    GITOPSHQ_AGENT_TOKEN_PATH="${STACK_DIR}/agent-identity.json" \
    GITOPSHQ_REGISTRATION_TOKEN="${reg_token}" \
    GITOPSHQ_CLUSTER_NAME="${BENCH_CLUSTER}" \
    GITOPSHQ_CAPABILITIES=observe,adapter.wire \
    GITOPSHQ_STATUS_INTERVAL_SECONDS=5 \
    KUBECONFIG="${REAL_KUBECONFIG}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx192m -jar "${AGENT_JAR}"
  wait_for "cluster ${BENCH_CLUSTER} did not become Connected" "${START_TIMEOUT}" agent cluster_connected
  info "cluster ${BENCH_CLUSTER} (${CLUSTER_ID}) is Connected after ${SECONDS} s"
}

# True when the wired GitRepository and Kustomization both poll every $1 (the agent writes
# the interval in seconds: 1m is "60s").
adapter_interval_is() {
  local got
  got=$(kc -n flux-system get gitrepositories.source.toolkit.fluxcd.io,kustomizations.kustomize.toolkit.fluxcd.io \
    -l app.kubernetes.io/managed-by=gitopshq -o jsonpath='{range .items[*]}{.spec.interval}{"\n"}{end}' 2>/dev/null) ||
    return 1
  [ -n "$got" ] && ! grep -qvx -- "$1" <<<"$got"
}

adapter_intervals() {
  kc -n flux-system get gitrepositories.source.toolkit.fluxcd.io,kustomizations.kustomize.toolkit.fluxcd.io \
    -o custom-columns=KIND:.kind,NAME:.metadata.name,INTERVAL:.spec.interval 2>&1 | sed 's/^/    /'
}

rewire() {
  api POST "/api/v2/clusters/${CLUSTER_ID}/adapters/rewire" '{}'
  api_expect 202 "rewiring the cluster's adapters"
}

main() {
  local stamp dir
  check_options "$0" "releases warmup poll-ms timeout-seconds" "" -- "$@"
  KUBE_START_ARGS=(--with-flux)
  KUBE_SEED=0
  hub_adapter_env true 5m
  stack_init
  stack_start with-kube
  start_wiring_agent
  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  dir="${STACK_DIR}/verify"
  mkdir -p "$dir"

  log "setup: project ${PROJECT}, environment ${ENVIRONMENT} bound to ${BENCH_CLUSTER} in flux mode"
  run_bench dev.gitopshq.bench.VerifyLatencyBench --step setup --hub-url "${HUB_URL}" \
    --cluster "${BENCH_CLUSTER}" --project "${PROJECT}" --environment "${ENVIRONMENT}" \
    --tenant "${TENANT}" --namespace "${NAMESPACE}"

  log "phase A: the hub asks Flux to reconcile on every commit (adapter interval 5m)"
  run_bench dev.gitopshq.bench.VerifyLatencyBench --step measure --hub-url "${HUB_URL}" \
    --label request --project "${PROJECT}" --environment "${ENVIRONMENT}" --flux-logs "${KUBE_DIR}/logs" \
    --out "$dir/request.json" "$@"
  adapter_intervals

  log "phase B: the hub restarted with GITOPSHQ_ADAPTER_RECONCILE_ON_COMMIT=false, GITOPSHQ_ADAPTER_INTERVAL=1m"
  stop_proc hub 30
  hub_adapter_env false 1m
  start_hub
  wait_for "cluster ${BENCH_CLUSTER} did not reconnect" "${START_TIMEOUT}" agent cluster_connected
  rewire
  wait_for "the wired GitRepository and Kustomization did not get interval 1m (60s)" 60 hub adapter_interval_is 60s
  adapter_intervals
  run_bench dev.gitopshq.bench.VerifyLatencyBench --step measure --hub-url "${HUB_URL}" \
    --label poll --project "${PROJECT}" --environment "${ENVIRONMENT}" --flux-logs "${KUBE_DIR}/logs" \
    --spread-seconds 60 --out "$dir/poll.json" "$@"

  run_bench dev.gitopshq.bench.VerifyLatencyBench --step report \
    --request "$dir/request.json" --poll "$dir/poll.json" \
    --out "${RESULTS_DIR}/verify-latency-${stamp}.json"
}

main "$@"
