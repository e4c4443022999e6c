#!/usr/bin/env bash
# Pod log sessions through hub and agent on loopback (capability diagnostics.read): 50 follow
# sessions of one chatty pod at once, with one more reader that never reads.
#
#   bench/run-log-sessions.sh [--sessions 50] [--seconds 30] [--lines-per-second 400]
#
# Starts the bench stack (bench/lib/stack.sh) without testkube, a real control plane
# (tools/dev/kube.sh: kube-apiserver and kwok, whose pods in the namespace demo read the CRI log
# file bench/target/stack/kube/pod-logs/demo.log), a Deployment "chatty" in demo, a writer that
# appends --lines-per-second lines to that file, and the agent jar (observe,diagnostics.read,
# -Xmx256m). The hub runs with GITOPSHQ_LOGS_MAX_PER_CLUSTER/USER=64 and a 10 s stall timeout.
# dev.gitopshq.bench.LogSessionsBench then prints: the line rate of one session alone; the rates
# of --sessions sessions at once (min, median, max) with the stalled reader among them; the hub's
# heap before and at most during; and when and why the stalled session was cut. Stops everything
# on exit.
#
# Needs `make build` (the jars), `make tools` (opa, temporal, kube binaries), kubectl.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

SESSIONS=50 SECONDS_RUN=30 RATE=400
WRITER_PID=''

parse() {
  while [ $# -gt 0 ]; do
    case "$1" in
      --sessions) SESSIONS=$2; shift 2 ;;
      --seconds) SECONDS_RUN=$2; shift 2 ;;
      --lines-per-second) RATE=$2; shift 2 ;;
      *) die "unknown option $1 (see the header of $0)" ;;
    esac
  done
  [[ "$SESSIONS" =~ ^[0-9]+$ && "$SECONDS_RUN" =~ ^[0-9]+$ && "$RATE" =~ ^[0-9]+$ ]] ||
    die "--sessions, --seconds and --lines-per-second take whole numbers"
  if [ "$SESSIONS" -lt 1 ] || [ "$SESSIONS" -gt 60 ]; then die "--sessions: 1 to 60"; fi
  if [ "$RATE" -lt 1 ] || [ "$RATE" -gt 20000 ]; then die "--lines-per-second: 1 to 20000"; fi
}

cleanup() {
  [ -z "${WRITER_PID}" ] || kill "${WRITER_PID}" 2>/dev/null || true
  "${TOOLS_DIR}/dev/kube.sh" stop "${STACK_DIR}/kube" >/dev/null 2>&1 || true
}

# writer FILE RATE: appends RATE CRI lines a second (in 10 batches) until killed (exec: the
# subshell becomes python, so killing WRITER_PID stops it).
writer() {
  exec python3 - "$1" "$2" <<'PY'
import datetime, sys, time
path, rate = sys.argv[1], int(sys.argv[2])
n = 0
batch = max(1, rate // 10)
while True:
    t = time.time()
    ts = datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%S.%fZ")
    with open(path, "a") as f:
        for _ in range(batch):
            n += 1
            f.write(f"{ts} stdout F level=info msg=\"chatty\" request={n} path=/api/orders/{n % 97} status=200 duration_ms={n % 250}\n")
    time.sleep(max(0.0, 0.1 - (time.time() - t)))
PY
}

main() {
  local kc reg_token pod started out
  parse "$@"
  export GITOPSHQ_LOGS_MAX_PER_CLUSTER=64 GITOPSHQ_LOGS_MAX_PER_USER=64 GITOPSHQ_LOGS_STALL_TIMEOUT=10s
  stack_init
  trap 'rc=$?; cleanup; (exit $rc); stack_stop' EXIT
  stack_start without-kube
  log "starting the control plane"
  "${TOOLS_DIR}/dev/kube.sh" start "${STACK_DIR}/kube" >"${LOG_DIR}/kube.log" 2>&1 ||
    die "the control plane did not start (see ${LOG_DIR}/kube.log)"
  kc="${STACK_DIR}/kube/admin.kubeconfig"
  kubectl --kubeconfig "$kc" create namespace demo >/dev/null 2>&1 || true
  kubectl --kubeconfig "$kc" -n demo create deployment chatty --image=registry.example/chatty:1 >/dev/null
  started=${SECONDS}
  until pod=$(kubectl --kubeconfig "$kc" -n demo get pods -l app=chatty \
    -o jsonpath='{.items[?(@.status.phase=="Running")].metadata.name}' 2>/dev/null) && [ -n "$pod" ]; do
    [ $((SECONDS - started)) -lt 120 ] || die "the chatty pod did not run within 120 s"
    sleep 1
  done
  pod=${pod%% *}
  writer "${STACK_DIR}/kube/pod-logs/demo.log" "${RATE}" &
  WRITER_PID=$!

  api POST /api/v2/clusters "{\"name\":\"${BENCH_CLUSTER}\",\"environment\":\"dev\"}"
  api_expect 201 "registering cluster ${BENCH_CLUSTER}"
  CLUSTER_ID=$(jq -r '.cluster.id' <<<"${API_BODY}")
  reg_token=$(jq -r '.registrationToken' <<<"${API_BODY}")
  start_proc agent env \
    GITOPSHQ_HUB_ADDRESS="${HOST}:${HUB_GRPC_PORT}" GITOPSHQ_HUB_PLAINTEXT=true \
    GITOPSHQ_AGENT_TOKEN_PATH="${STACK_DIR}/agent-identity.json" \
    GITOPSHQ_REGISTRATION_TOKEN="${reg_token}" GITOPSHQ_CLUSTER_NAME="${BENCH_CLUSTER}" \
    GITOPSHQ_CAPABILITIES=observe,diagnostics.read GITOPSHQ_STATUS_INTERVAL_SECONDS=5 KUBECONFIG="$kc" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx256m -jar "${AGENT_JAR}"
  wait_for "the agent did not connect" 60 agent cluster_connected
  build_bench_jar
  info "pod demo/${pod}, ${RATE} lines/s, ${SESSIONS} sessions for ${SECONDS_RUN} s"
  out="${RESULTS_DIR}/log-sessions-$(date -u +%Y%m%dT%H%M%SZ).txt"
  log "measuring"
  run_bench dev.gitopshq.bench.LogSessionsBench \
    --hub-url "${HUB_URL}" --cluster-id "${CLUSTER_ID}" --namespace demo --pod "${pod}" \
    --sessions "${SESSIONS}" --seconds "${SECONDS_RUN}" | tee "${out}"
}

main "$@"
