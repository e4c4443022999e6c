#!/usr/bin/env bash
# Benchmark 9: the hub's resident memory over many Helm renders. Renders the
# same units --renders times (default 100,000) in a JVM of its own (-Xmx256m)
# on the render worker processes, as the hub renders, and reads its RSS after
# a GC every --every renders (default 10,000), with the workers' RSS beside
# it. Prints the JVM's RSS per render and writes
# bench/results/render-soak-<UTC time>.json.
#
#   bench/run-render-soak.sh [--renders 100000] [--every 10000] [--chart DIR]
#
# No database, Temporal or hub: the library code runs in the benchmark JVMs.
# Needs `make build` (or BENCH_MAVEN_REPO, see bench/README.md) and Go (the
# render worker, built when missing).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

main() {
  local java_home out render_env
  "${TOOLS_DIR}/build-tools.sh" render-worker >/dev/null ||
    die "cannot build the render worker (tools/render-worker)"
  mapfile -t render_env < <(hub_render_env)   # the render worker as the hub starts it
  check_options "$0" "renders every" "chart" -- "$@"
  java_home=$("${TOOLS_DIR}/lib/java.sh") || exit 1
  export JAVA_HOME=${java_home}
  build_bench_jar
  check_machine_idle
  mkdir -p "${RESULTS_DIR}"
  out="${RESULTS_DIR}/render-soak-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  # In the foreground: Ctrl-C reaches this JVM and the render JVMs it starts (one process group).
  BENCH_GIT_REVISION="$(git_revision)" exec env "${render_env[@]}" "${java_home}/bin/java" \
    -Xmx128m -cp "${BENCH_JAR}" dev.gitopshq.bench.RenderSoakBench \
    --chart "${BENCH_DIR}/charts/webapp" --out "${out}" "$@" </dev/null   # a later --chart wins
}

main "$@"
