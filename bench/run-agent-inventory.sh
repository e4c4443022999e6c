#!/usr/bin/env bash
# Benchmark: the agent's memory with its inventory informers on a real API server, next to the
# smallest Fabric8 program with the same informers (dev.gitopshq.bench.InformerBaseline).
#
#   bench/run-agent-inventory.sh [--pods 300] [--others 1000] [--settle 20]
#
# Starts an isolated stack (bench/lib/stack.sh: PostgreSQL database gitopshq_bench, Temporal,
# OPA, the hub) and a real control plane (tools/dev/kube.sh: etcd, kube-apiserver, controllers,
# kwok) in the stack's directory; creates --pods Pods (scheduled onto kwok's node) and --others
# ConfigMaps, headless Services and Secrets in three namespaces; registers a cluster and starts the real
# agent (observe) against it; starts the baseline with the same heap limit; waits until both
# have listed everything and --settle seconds more; then samples both processes' RSS (VmRSS,
# after a full GC through jcmd when it is there) five times, one second apart. Prints the
# figures and the ratio, and writes bench/results/agent-inventory-<UTC time>.json. Everything
# runs on loopback and stops on exit.
#
# Needs `make build` (the jars) and `make tools` (opa, temporal, the Kubernetes binaries).
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly HEAP=-Xmx192m
PODS=300 OTHERS=1000 SETTLE=20

parse() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --pods) PODS=$2; shift 2 ;;
      --others) OTHERS=$2; shift 2 ;;
      --settle) SETTLE=$2; shift 2 ;;
      *) die "unknown option $1 (see the header of $0)" ;;
    esac
  done
  [[ "$PODS" =~ ^[0-9]+$ && "$OTHERS" =~ ^[0-9]+$ && "$SETTLE" =~ ^[0-9]+$ ]] ||
    die "--pods, --others and --settle take whole numbers"
  if [ "$PODS" -gt 2000 ] || [ "$OTHERS" -gt 10000 ]; then
    die "at most 2000 pods and 10000 others"
  fi
}

kube_stop() { "${TOOLS_DIR}/dev/kube.sh" stop "${STACK_DIR}/kube" >/dev/null 2>&1 || true; }

# The objects, as one multi-document YAML per namespace.
objects_yaml() { # namespace pods others
  local ns=$1 pods=$2 others=$3 i
  printf 'apiVersion: v1\nkind: Namespace\nmetadata: {name: %s}\n' "$ns"
  for ((i = 0; i < pods; i++)); do
    printf -- '---\napiVersion: v1\nkind: Pod\nmetadata: {name: p-%d, namespace: %s, labels: {app: bench, n: "%d"}}\nspec:\n  containers: [{name: app, image: registry.example/bench:1}]\n' "$i" "$ns" "$i"
  done
  for ((i = 0; i < others; i++)); do
    case $((i % 3)) in
      0) printf -- '---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: c-%d, namespace: %s, labels: {app: bench}}\ndata: {a: "%s", b: "%s"}\n' "$i" "$ns" "value-$i" "another value $i" ;;
      1) printf -- '---\napiVersion: v1\nkind: Service\nmetadata: {name: s-%d, namespace: %s, labels: {app: bench}}\nspec: {clusterIP: None, selector: {n: "%d"}, ports: [{port: 80}]}\n' "$i" "$ns" "$i" ;;
      2) printf -- '---\napiVersion: v1\nkind: Secret\nmetadata: {name: x-%d, namespace: %s, labels: {app: bench}}\nstringData: {password: "secret-%d"}\n' "$i" "$ns" "$i" ;;
    esac
  done
}

rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$1/status"; }

gc() {
  if command -v jcmd >/dev/null 2>&1; then
    jcmd "$1" GC.run >/dev/null 2>&1 || true
  fi
}

inventory_objects() {
  api GET "/api/v2/clusters/${CLUSTER_ID}/inventory"
  jq -r '.objects // 0' <<<"${API_BODY}"
}

main() {
  local kc url reg_token agent_pid base_pid target i a b out started
  parse "$@"
  stack_init
  trap 'rc=$?; kube_stop; (exit $rc); stack_stop' EXIT
  stack_start without-kube
  log "starting the control plane"
  "${TOOLS_DIR}/dev/kube.sh" start "${STACK_DIR}/kube" >"${LOG_DIR}/kube.log" 2>&1 ||
    die "the control plane did not start (see ${LOG_DIR}/kube.log)"
  kc="${STACK_DIR}/kube/admin.kubeconfig"
  url=$(awk '$1 == "kube" && $2 == "ready" { print $3 }' "${LOG_DIR}/kube.log")
  log "creating ${PODS} Pods and ${OTHERS} other objects at ${url}"
  for i in 1 2 3; do
    objects_yaml "bench-$i" $((PODS / 3)) $((OTHERS / 3)) |
      kubectl --kubeconfig "$kc" apply --server-side --field-manager bench -f - >/dev/null
  done
  target=$(kubectl --kubeconfig "$kc" get pods,configmaps,services,secrets,namespaces,nodes -A --no-headers 2>/dev/null | wc -l)
  info "the cluster holds ${target} objects of the watched kinds and more"

  api POST /api/v2/clusters "{\"name\":\"${BENCH_CLUSTER}\",\"environment\":\"dev\"}"
  api_expect 201 "registering cluster ${BENCH_CLUSTER}"
  CLUSTER_ID=$(jq -r '.cluster.id' <<<"${API_BODY}")
  reg_token=$(jq -r '.registrationToken' <<<"${API_BODY}")
  start_proc agent env \
    GITOPSHQ_HUB_ADDRESS="${HOST}:${HUB_GRPC_PORT}" GITOPSHQ_HUB_PLAINTEXT=true \
    GITOPSHQ_AGENT_TOKEN_PATH="${STACK_DIR}/agent-identity.json" \
    GITOPSHQ_REGISTRATION_TOKEN="${reg_token}" GITOPSHQ_CLUSTER_NAME="${BENCH_CLUSTER}" \
    GITOPSHQ_CAPABILITIES=observe GITOPSHQ_STATUS_INTERVAL_SECONDS=5 KUBECONFIG="$kc" \
    "${JAVA}" "${JVM_OPTS[@]}" "${HEAP}" -jar "${AGENT_JAR}"
  agent_pid=${PROC_PID[agent]}
  build_bench_jar
  start_proc baseline env KUBECONFIG="$kc" \
    "${JAVA}" "${JVM_OPTS[@]}" "${HEAP}" -cp "${BENCH_JAR}" dev.gitopshq.bench.InformerBaseline
  base_pid=${PROC_PID[baseline]}
  started=${SECONDS}
  until [ "$(inventory_objects)" -ge "$((target * 9 / 10))" ] 2>/dev/null &&
    grep -q '^baseline ready' "${LOG_DIR}/baseline.log"; do
    [ $((SECONDS - started)) -lt 180 ] || die "the agent or the baseline did not list everything within 180 s"
    sleep 1
  done
  info "agent inventory: $(inventory_objects) objects; $(grep '^baseline ready' "${LOG_DIR}/baseline.log")"
  sleep "${SETTLE}"
  out="${RESULTS_DIR}/agent-inventory-$(date -u +%Y%m%dT%H%M%SZ).json"
  a=() b=()
  for i in 1 2 3 4 5; do
    gc "$agent_pid"; gc "$base_pid"
    a+=("$(rss_kib "$agent_pid")") b+=("$(rss_kib "$base_pid")")
    sleep 1
  done
  python3 - "$out" "${PODS}" "${OTHERS}" "$(inventory_objects)" "${a[*]}" "${b[*]}" <<'PY'
import json, statistics, sys
out, pods, others, objects, a, b = sys.argv[1:]
a = [int(x) / 1024 for x in a.split()]
b = [int(x) / 1024 for x in b.split()]
ma, mb = statistics.median(a), statistics.median(b)
print(f"objects in the agent's inventory: {objects}")
print(f"agent RSS (MiB, median of 5):    {ma:7.1f}   samples {', '.join(f'{x:.1f}' for x in a)}")
print(f"baseline RSS (MiB, median of 5): {mb:7.1f}   samples {', '.join(f'{x:.1f}' for x in b)}")
print(f"ratio agent / baseline:          {ma / mb:7.2f}   (target <= 1.5, and agent <= 256 MiB)")
json.dump({"pods": int(pods), "others": int(others), "inventoryObjects": int(objects),
           "agentRssMiB": a, "baselineRssMiB": b, "ratio": ma / mb}, open(out, "w"), indent=2)
print(f"written to {out}")
PY
}

main "$@"
