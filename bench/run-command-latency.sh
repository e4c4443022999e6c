#!/usr/bin/env bash
# Benchmark 1: end-to-end latency of auto-approved scale commands, against a
# Temporal workflow with one no-op activity on the same Temporal server.
#
#   bench/run-command-latency.sh [--commands 200] [--warmup 20] [--poll-ms 5] [--timeout-seconds 30]
#
# Starts an isolated stack (bench/lib/stack.sh: fresh PostgreSQL database
# gitopshq_bench, Temporal dev server, OPA, testkube, the hub, one agent on
# ports 17233/18181/18080/15051), registers cluster "bench", binds an approval
# policy that auto-approves scale, creates a member token, then runs
# dev.gitopshq.bench.CommandLatencyBench (options are passed through). Prints
# the tables and writes bench/results/command-latency-<UTC time>.json. Stops
# everything it started on exit, also on failure or Ctrl-C.
#
# Needs `make build` (the jars) and `make tools` (opa, temporal). See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

main() {
  local out
  check_options "$0" "commands warmup poll-ms timeout-seconds" "" -- "$@"
  stack_init
  stack_start with-kube
  stack_start_agent
  out="${RESULTS_DIR}/command-latency-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  run_bench dev.gitopshq.bench.CommandLatencyBench \
    --hub-url "${HUB_URL}" --cluster-id "${CLUSTER_ID}" --temporal-address "${TEMPORAL_ADDRESS}" \
    --out "${out}" "$@"
}

main "$@"
