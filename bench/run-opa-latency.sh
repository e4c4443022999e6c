#!/usr/bin/env bash
# Benchmark 2: latency of one approval decision through the hub's REST API, the
# hub's OpaClient (in the benchmark JVM) and bare HTTP calls to OPA.
#
#   bench/run-opa-latency.sh [--decisions 2000] [--warmup 200] [--input FILE]
#
# Starts an isolated stack (bench/lib/stack.sh: fresh PostgreSQL database
# gitopshq_bench, Temporal dev server, OPA, the hub; no agent), waits until the
# hub has loaded the approval policy into OPA, then runs
# dev.gitopshq.bench.OpaLatencyBench (options are passed through). The default
# input is policies/testdata/approval/default_staging_scale_auto_approved. Prints
# the table and writes bench/results/opa-latency-<UTC time>.json. Stops
# everything it started on exit, also on failure or Ctrl-C.
#
# Needs `make build` (the jars) and `make tools` (opa, temporal). See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly DEFAULT_INPUT="${REPO_ROOT}/policies/testdata/approval/default_staging_scale_auto_approved/data.json"

main() {
  local out
  check_options "$0" "decisions warmup" "input" -- "$@"
  stack_init
  stack_start without-kube
  out="${RESULTS_DIR}/opa-latency-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  run_bench dev.gitopshq.bench.OpaLatencyBench \
    --hub-url "${HUB_URL}" --opa-url "${OPA_URL}" --out "${out}" \
    --input "${DEFAULT_INPUT}" "$@"   # a later --input (from "$@") wins
}

main "$@"
