#!/usr/bin/env bash
# What one Temporal hop costs on the dev server: workflows of several shapes (no activity, one,
# five activities, five local activities then one; eager start off and on), started and awaited
# from one JVM whose worker polls the same task queue.
#
#   bench/run-temporal-hops.sh [--rounds 100] [--warmup 20]
#
# Starts only the Temporal dev server (bench/lib/stack.sh, port 17233) with BENCH_TEMPORAL_ARGS
# appended, so the same shapes can be compared across server settings, e.g.
#   BENCH_TEMPORAL_ARGS="--dynamic-config-value history.transferProcessorMaxPollRPS=1000" \
#     bench/run-temporal-hops.sh
# Prints the table and writes bench/results/temporal-hops-<UTC time>.json. See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

main() {
  local out
  check_options "$0" "rounds warmup" "" -- "$@"
  stack_init
  log "starting Temporal (${TEMPORAL_ADDRESS})${BENCH_TEMPORAL_ARGS:+ with ${BENCH_TEMPORAL_ARGS}}"
  start_temporal
  wait_for_temporal
  out="${RESULTS_DIR}/temporal-hops-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  run_bench dev.gitopshq.bench.TemporalHopsBench --temporal-address "${TEMPORAL_ADDRESS}" \
    --out "${out}" "$@"
}

main "$@"
