#!/usr/bin/env bash
# Benchmark: the hub's ingest rate of inventory messages from many agents.
#
#   bench/run-inventory-ingest.sh [--clusters 100] [--objects 1000] [--deltas 4]
#
# Starts an isolated stack (bench/lib/stack.sh: fresh PostgreSQL database gitopshq_bench,
# Temporal, OPA, the hub; no agent), then runs dev.gitopshq.bench.InventoryIngestBench: the
# simulated agents register over gRPC, connect, and send one snapshot each, then deltas of 500
# new objects each, all at once; every phase ends when the hub's REST API counts every object.
# Prints objects per second and writes bench/results/inventory-ingest-<UTC time>.json.
# Loopback only; stops everything on exit.
#
# Needs `make build` (the jars) and `make tools` (opa, temporal). See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

main() {
  local out
  check_options "$0" "clusters objects deltas" "" -- "$@"
  stack_init
  stack_start without-kube
  build_bench_jar
  out="${RESULTS_DIR}/inventory-ingest-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  run_bench dev.gitopshq.bench.InventoryIngestBench \
    --hub-url "${HUB_URL}" --grpc "${HOST}:${HUB_GRPC_PORT}" --out "${out}" "$@"
}

main "$@"
