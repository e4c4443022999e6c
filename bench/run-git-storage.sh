#!/usr/bin/env bash
# Issue 28: the hosted Git repositories on the file storage and in PostgreSQL
# (GITOPSHQ_GIT_STORAGE=file|postgres), measured the same way in one run. Starts
# PostgreSQL (fresh database gitopshq_bench_git), Temporal, OPA and the real hub
# jar with the file storage, measures, restarts the hub with the PostgreSQL
# storage and measures again. Each backend, each round, a fresh project (REST):
#
#   - a commit of --units rendered units (4 manifests each) on main, written as
#     trees a pack per 25 units and committed in one commit (ProjectRepos in the
#     benchmark JVM, on the hub's storage: its directory, or its database), as
#     delivery generation does; then an incremental commit of one unit;
#   - `git clone --no-checkout` over the hub's Git HTTP endpoint (token check,
#     JGit upload-pack on the storage), then one more one-unit commit and
#     `git fetch` in that clone;
#   - the repository's size: its directory (file) or its pack bytes (PostgreSQL).
#
#   bench/run-git-storage.sh [--rounds 3] [--warmup 1] [--units 1000]
#
# Prints the medians with postgres/file ratios and writes
# bench/results/git-storage-<UTC time>.json. Needs the hub jar built from this
# checkout (api/target/gitopshq-hub.jar), the opa and temporal binaries (make
# tools), gitopshq-activities in the local Maven repository (for the benchmark
# jar; see bench/README.md) and git. Ports and database differ from the other
# benchmarks' (BENCH_HUB_HTTP_PORT 18580, BENCH_HUB_GRPC_PORT 15551,
# BENCH_TEMPORAL_PORT 17733, BENCH_OPA_PORT 18681, BENCH_DB gitopshq_bench_git),
# so it can run beside them. BENCH_GIT_STORAGES=file (or postgres) measures one
# storage alone; BENCH_HUB_DB_POOL is the hub's GITOPSHQ_DB_POOL_SIZE (5).
set -euo pipefail
export BENCH_HUB_HTTP_PORT=${BENCH_HUB_HTTP_PORT:-18580} BENCH_HUB_GRPC_PORT=${BENCH_HUB_GRPC_PORT:-15551}
export BENCH_TEMPORAL_PORT=${BENCH_TEMPORAL_PORT:-17733} BENCH_OPA_PORT=${BENCH_OPA_PORT:-18681}
export BENCH_DB=${BENCH_DB:-gitopshq_bench_git}
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly WORK_DIR="${BENCH_DIR}/target/git-storage"
# The storages measured, in this order (one of them alone for a quick look: no comparison then).
readonly BENCH_GIT_STORAGES=${BENCH_GIT_STORAGES:-file postgres}
# The hub's connection pool: one clone or fetch at a time needs few, and the machine's PostgreSQL
# is shared (max_connections 300).
readonly BENCH_HUB_DB_POOL=${BENCH_HUB_DB_POOL:-5}

# stack_init without the agent and testkube jars (no cluster here).
init() {
  command -v git >/dev/null 2>&1 || die "git is missing; install it with: apt-get install -y git"
  for cmd in curl jq setsid; do
    command -v "$cmd" >/dev/null 2>&1 || die "${cmd} is missing"
  done
  java_setup
  [ -f "${HUB_JAR}" ] || die "${HUB_JAR#"${REPO_ROOT}"/} is missing; build it first: make build"
  OPA_BIN=$("${TOOLS_DIR}/bin-path.sh" opa 2>/dev/null) || die "the opa binary is not built; run: make tools"
  TEMPORAL_BIN=$("${TOOLS_DIR}/bin-path.sh" temporal 2>/dev/null) || die "the temporal binary is not built; run: make tools"
  "${TOOLS_DIR}/bin-path.sh" render-worker >/dev/null 2>&1 || die "the render worker is not built; run: make tools"
  stack_check_ports
  build_bench_jar
  check_machine_idle
  rm -rf "${STACK_DIR}" "${WORK_DIR}"
  mkdir -p "${LOG_DIR}" "${RESULTS_DIR}" "${WORK_DIR}"
  OWNER_TOKEN="bench-owner-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  trap stack_stop EXIT
  trap 'echo; exit 130' INT
  trap 'exit 143' TERM
}

measure() {
  local storage=$1; shift
  log "measuring the ${storage} storage (hub ${HUB_URL}, GITOPSHQ_GIT_STORAGE=${storage})"
  run_bench dev.gitopshq.bench.GitStorageBench --storage "${storage}" --hub "${HUB_URL}" \
    --db-url "jdbc:postgresql://${HOST}:${PG_PORT}/${BENCH_DB_NAME}" \
    --git-root "${STACK_DIR}/hub-data/repos" --work-dir "${WORK_DIR}" \
    --part "${WORK_DIR}/${storage}.json" "$@"
}

main() {
  local storage started=''
  check_options "$0" "rounds warmup units" "" -- "$@"
  init
  for storage in ${BENCH_GIT_STORAGES}; do
    HUB_EXTRA_ENV=(GITOPSHQ_GIT_STORAGE="${storage}" GITOPSHQ_DB_POOL_SIZE="${BENCH_HUB_DB_POOL}")
    if [ -z "$started" ]; then
      stack_start without-kube
      started=1
    else
      log "restarting the hub with GITOPSHQ_GIT_STORAGE=${storage}"
      stop_proc hub 30
      start_hub
    fi
    measure "${storage}" "$@"
  done
  [ "${BENCH_GIT_STORAGES}" = "file postgres" ] || { info "BENCH_GIT_STORAGES=${BENCH_GIT_STORAGES}: no comparison"; return 0; }

  run_bench dev.gitopshq.bench.GitStorageBench --mode report --file "${WORK_DIR}/file.json" \
    --postgres "${WORK_DIR}/postgres.json" --out "${RESULTS_DIR}/git-storage-$(date -u +%Y%m%dT%H%M%SZ).json"
}

main "$@"
