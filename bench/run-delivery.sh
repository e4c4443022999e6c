#!/usr/bin/env bash
# Benchmark 3: delivery generation. Plans a project of environments x tenants x
# workloads Helm units (default 5 x 20 x 10 = 1,000), renders every unit
# on the render worker processes (Renderer, as the hub renders) with 1 thread and with --threads, writes the
# trees and commits them in one commit (ProjectRepos, JGit), then a second,
# identical run that must not commit; then a whole delivery generation as the
# hub's activities make it (plan, fingerprint, render, store, commit) followed
# by --incremental-rounds generations that each change one value of one unit
# (only that unit is rendered again); and the same units through the `helm`
# CLI (`helm template`, one process per unit) and the same files through the
# `git` CLI (`git add -A`, `git commit`) in a fresh repository.
#
#   bench/run-delivery.sh [--environments 5] [--tenants 20] [--workloads 10]
#                         [--threads <cores>] [--warmup 20] [--store-rounds 3]
#                         [--incremental-rounds 5] [--chart DIR]
#
# No database, Temporal or hub: the library code runs in the benchmark JVM.
# Builds the helm CLI (tools/build-tools.sh helm, ~2.5 min the first time) and
# the benchmark jar when they are missing. Prints the tables and writes
# bench/results/delivery-<UTC time>.json; the repositories, helm outputs and
# the git working tree of the last run stay in bench/target/delivery/.
#
# Needs `make build` (gitopshq-activities in the local Maven repository; or
# BENCH_MAVEN_REPO, see bench/README.md), Go (for helm), git. See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly DELIVERY_DIR="${BENCH_DIR}/target/delivery"
readonly DEFAULT_CHART="${BENCH_DIR}/charts/webapp"

main() {
  local java_home major helm_bin out repo activities_jar rc=0
  local -a jvm=() render_env
  check_options "$0" "environments tenants workloads threads warmup store-rounds incremental-rounds" "chart" -- "$@"
  command -v git >/dev/null 2>&1 || die "git is missing; install it with: apt-get install -y git"
  java_home=$("${TOOLS_DIR}/lib/java.sh") || exit 1
  export JAVA_HOME=${java_home}
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "${java_home}/release" 2>/dev/null || true)
  # Allow the sun.misc.Unsafe use of libraries on the classpath quietly on JDK 24+.
  if [ -n "$major" ] && [ "$major" -ge 24 ]; then
    jvm=(--sun-misc-unsafe-memory-access=allow)
  fi
  "${TOOLS_DIR}/build-tools.sh" render-worker >/dev/null ||
    die "cannot build the render worker (tools/render-worker); it needs Go >= 1.26"
  # The render worker as the hub starts it (GITOPSHQ_RENDER_WORKERS etc. pass through).
  mapfile -t render_env < <(hub_render_env)
  if ! helm_bin=$("${TOOLS_DIR}/bin-path.sh" helm 2>/dev/null); then
    log "the helm CLI is not built yet: building it once (tools/build-tools.sh helm)"
    "${TOOLS_DIR}/build-tools.sh" helm ||
      die "cannot build the helm CLI (tools/helm); it needs Go >= 1.26 and the Go module proxy"
    helm_bin=$("${TOOLS_DIR}/bin-path.sh" helm)
  fi

  build_bench_jar
  check_machine_idle
  mkdir -p "${RESULTS_DIR}"
  out="${RESULTS_DIR}/delivery-$(date -u +%Y%m%dT%H%M%SZ).json"
  repo=${BENCH_MAVEN_REPO:-${HOME:-/root}/.m2/repository}
  activities_jar=$(find "${repo}/dev/gitopshq/gitopshq-activities" -name 'gitopshq-activities-*.jar' \
                     ! -name '*-tests.jar' -print -quit 2>/dev/null || true)

  log "measuring (work directory ${DELIVERY_DIR#"${REPO_ROOT}"/})"
  # In the background with `wait`, as run_bench does: Ctrl-C stops the JVM (and
  # the helm or git process it waits for) at once.
  BENCH_GIT_REVISION="$(git_revision)" \
  BENCH_JARS_BUILT="gitopshq-activities ${activities_jar:+$(date -u -r "${activities_jar}" +%FT%TZ)} (${repo})" \
  env "${render_env[@]}" "${java_home}/bin/java" "${jvm[@]}" -Xmx1g -cp "${BENCH_JAR}" dev.gitopshq.bench.DeliveryBench \
      --helm "${helm_bin}" --chart "${DEFAULT_CHART}" --work-dir "${DELIVERY_DIR}" --out "${out}" \
      "$@" </dev/null &   # a later --chart (from "$@") wins
  BENCH_PID=$!
  trap 'kill -TERM "${BENCH_PID}" 2>/dev/null || true; echo; exit 130' INT
  trap 'kill -TERM "${BENCH_PID}" 2>/dev/null || true; exit 143' TERM
  wait "${BENCH_PID}" || rc=$?
  BENCH_PID=''
  return "$rc"
}

main "$@"
