#!/usr/bin/env bash
# Benchmark 9: the hub's resident memory over many Helm renders. Renders the
# same units --renders times (default 50,000) in a JVM of its own (-Xmx256m)
# and reads its RSS after a GC every --every renders (default 5,000): once as
# the hub runs (helm-java's leftover goroutines freed), once with
# -Dgitopshq.helm.releaseGoroutines=false (the baseline). Prints RSS per
# render for both and writes bench/results/render-soak-<UTC time>.json.
#
#   bench/run-render-soak.sh [--renders 50000] [--every 5000] [--chart DIR]
#
# No database, Temporal or hub: the library code runs in the benchmark JVMs.
# Needs `make build` (or BENCH_MAVEN_REPO, see bench/README.md).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

main() {
  local java_home out go_env
  mapfile -t go_env < <(hub_go_env)   # the renderer's Go runtime as the hub starts it
  check_options "$0" "renders every" "chart" -- "$@"
  java_home=$("${TOOLS_DIR}/lib/java.sh") || exit 1
  export JAVA_HOME=${java_home}
  build_bench_jar
  check_machine_idle
  mkdir -p "${RESULTS_DIR}"
  out="${RESULTS_DIR}/render-soak-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  # In the foreground: Ctrl-C reaches this JVM and the render JVMs it starts (one process group).
  BENCH_GIT_REVISION="$(git_revision)" exec env "${go_env[@]}" "${java_home}/bin/java" \
    --enable-native-access=ALL-UNNAMED -Xmx128m -cp "${BENCH_JAR}" dev.gitopshq.bench.RenderSoakBench \
    --chart "${BENCH_DIR}/charts/webapp" --out "${out}" "$@" </dev/null   # a later --chart wins
}

main "$@"
