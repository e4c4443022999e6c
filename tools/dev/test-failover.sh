#!/usr/bin/env bash
# The failover test of the HA profile (`make test-failover`; on demand, never part of make test or
# .ci/run: 3 to 15 minutes on 2 cores by load, see docs/operations.md for its last result). Starts
# tools/dev/run-ha.sh with 3 replicas on ports and databases of its own, a real control plane
# (tools/dev/kube.sh: kube-apiserver, controllers and kwok, seeded with the demo workloads, pod
# logs growing a line a second) and ONE real agent (the agent jar; observe, diagnostics.read,
# kubernetes.scale, direct.deploy) connected through HAProxy's gRPC port. Then
# dev.gitopshq.bench.FailoverDrill (bench/) connects 200 simulated agents through HAProxy (a real
# cluster, registration, Connect stream and heartbeats each) and runs at once:
#
#   - a log follow of a pod of demo/web over the UI's WebSocket, with a client that reconnects by
#     itself once the agent is connected again;
#   - an inspection loop: the live read of Deployment demo/web (through the agent) every 250 ms;
#   - a REST loop (GET /api/v2/clusters) every 250 ms and a `git clone` loop every second, both
#     through HAProxy;
#   - a scale command of demo/web created under a policy that requires approval, left waiting;
#   - release #1 of project shop, whose environment dev the real agent's cluster delivers in
#     direct mode ("deployed": the hub committed deploy/dev, the agent server-side applied the
#     rendered objects into namespace shop-dev and the Deployment rolled out on kwok), created
#     right before the kill.
#
# It kills (SIGKILL) the replica that holds the real agent's stream (clusters.connected_replica),
# the drill approves the command as an admin, and every check prints PASS or FAIL:
#
#   1. every simulated agent cut by the kill, and the real agent, is back within the bound
#      (GITOPSHQ_FAILOVER_BOUND, 15 s: the agent's backoff dev.gitopshq.agent.link.Backoff draws
#      the first three delays from [0, 1], [0, 2] and [0, 4] s, 7 s at most, plus 8 s for the TLS
#      handshake and Hello on a loaded 2-core machine);
#   2. the command completed exactly once (one completed entry in its timeline, one "running
#      command" in the agent's log, the Deployment's spec.replicas changed);
#   3. the release finished exactly once (one deployment, deployed; one "direct apply" of it in
#      the agent's log; one deploy commit on deploy/dev);
#   4. the log follow resumed after exactly one reconnect and lines kept coming;
#   5. every failed request of the loops was in flight on the killed replica (or on the agent's
#      stream it held, before the agent was back), none after HAProxy marked it down;
#   6. the audit chain verifies (GET /api/v2/audit/verify).
#
# Then it stops everything it started. Exit code 0 only when every check passed.
#
#   tools/dev/test-failover.sh [--agents 200]
#
# Needs `make build` (api, agent jars; it does not build them), the bench jar's modules in the
# local Maven repository (bench/README.md), `make tools` (opa, temporal, temporal-server, kube),
# kubectl, jq, git, HAProxy (run-ha.sh installs it as root).
#
# Env knobs: GITOPSHQ_FAILOVER_BOUND (seconds, 15), GITOPSHQ_FAILOVER_PORT_BASE (31000: HAProxy
# base+80 HTTP and base+51 gRPC, stats base+404, replicas base+100.., Temporal base+233.., OPA
# base+181..), GITOPSHQ_HA_TEST_TIMEOUT (seconds for the stack to come up, 900),
# GITOPSHQ_HUB_TIMEOUT (seconds for each replica to be ready, 600 here: a loaded 2-core machine
# took over 180), GITOPSHQ_HA_DB_POOL_SIZE (each replica's pool, run-ha.sh's 8: with 5, 200 agents
# registering at once on a loaded machine waited over 5 s for a connection, 503).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
readonly HOST=127.0.0.1
# shellcheck source=../lib/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/procs.sh"
# shellcheck source=../lib/ha.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ha.sh"

AGENTS=200
while [ $# -gt 0 ]; do
  case "$1" in
    --agents) AGENTS=${2:?--agents needs a number}; shift 2 ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "usage: tools/dev/test-failover.sh [--agents N]" ;;
  esac
done
if ! [[ "$AGENTS" =~ ^[0-9]+$ ]] || [ "$AGENTS" -lt 1 ] || [ "$AGENTS" -gt 1000 ]; then
  die "--agents: 1 to 1000"
fi

readonly UP_TIMEOUT=${GITOPSHQ_HA_TEST_TIMEOUT:-900}
readonly BOUND=${GITOPSHQ_FAILOVER_BOUND:-15}
readonly BASE=${GITOPSHQ_FAILOVER_PORT_BASE:-31000}
readonly WORK="${STATE_DIR}/failover-test"
readonly READY="${WORK}/ready.env"
readonly LOG_DIR="${WORK}/logs"
readonly DRILL_DIR="${WORK}/drill"
readonly KUBE_DIR="${WORK}/kube"
readonly DBS=(gitopshq_failover temporal_failover temporal_visibility_failover)
readonly HUB_JAR="${REPO_ROOT}/api/target/gitopshq-hub.jar"
readonly AGENT_JAR="${REPO_ROOT}/agent/target/gitopshq-agent.jar"
readonly BENCH_JAR="${REPO_ROOT}/bench/target/gitopshq-bench.jar"
readonly REAL_CLUSTER=failover-real
DRILL_PID='' KUBE_STARTED=0 FAILED=0 T0=${SECONDS}

pass() { printf '    PASS %s\n' "$*"; }
fail() { printf '    FAIL %s\n' "$*"; FAILED=1; }
as_postgres() { if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi; }
hub_sql() { PGPASSWORD=${GITOPSHQ_PG_PASSWORD:-gitopshq} psql -h "${HOST}" -U "${GITOPSHQ_PG_USER:-gitopshq}" -d "${DBS[0]}" -qAtc "$1"; }

stop_all() {
  local rc=$?
  trap '' INT TERM
  if [ -n "${DRILL_PID}" ] && kill -0 "${DRILL_PID}" 2>/dev/null; then
    kill -KILL "${DRILL_PID}" 2>/dev/null || true
    wait "${DRILL_PID}" 2>/dev/null || true
  fi
  [ ${#PROC_PID[@]} -eq 0 ] || stop_proc agent 10
  [ "${KUBE_STARTED}" = 0 ] || "${TOOLS_DIR}/dev/kube.sh" stop "${KUBE_DIR}" >/dev/null 2>&1 || true
  ha_stop
  exit "$rc"
}
trap stop_all EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- prerequisites ---------------------------------------------------------------------------
for cmd in curl jq git kubectl psql setsid; do
  command -v "$cmd" >/dev/null 2>&1 || die "${cmd} is missing"
done
for jar in "${HUB_JAR}" "${AGENT_JAR}"; do
  [ -f "$jar" ] || die "${jar#"${REPO_ROOT}"/} is missing; build it first: make build"
done
java_setup
if [ ! -f "${BENCH_JAR}" ] ||
   [ -n "$(find "${REPO_ROOT}/bench/pom.xml" "${REPO_ROOT}/bench/src" -newer "${BENCH_JAR}" -type f -print -quit)" ]; then
  log "building the bench jar (tools/mvn.sh -q -o -f bench/pom.xml package)"
  "${TOOLS_DIR}/mvn.sh" -q -o -f "${REPO_ROOT}/bench/pom.xml" package ||
    die "building bench/ failed; it needs the project's modules in the local Maven repository (bench/README.md)"
fi

# The HA profile's settings. Its ports, Temporal's membership ports (300 below each service)
# included, are checked by run-ha.sh itself, here before the control plane starts.
HA_ENV=(GITOPSHQ_STATE_DIR="${WORK}/state" GITOPSHQ_HA_READY_FILE="${READY}" GITOPSHQ_HUB_JAR="${HUB_JAR}"
  GITOPSHQ_HUB_TIMEOUT="${GITOPSHQ_HUB_TIMEOUT:-600}"
  GITOPSHQ_HA_DB="${DBS[0]}" GITOPSHQ_HA_TEMPORAL_DB="${DBS[1]}" GITOPSHQ_HA_VISIBILITY_DB="${DBS[2]}"
  GITOPSHQ_HUB_PORT=$((BASE + 80)) GITOPSHQ_GRPC_PORT=$((BASE + 51)) GITOPSHQ_HA_STATS_PORT=$((BASE + 404))
  GITOPSHQ_HA_REPLICA_PORT=$((BASE + 100)) GITOPSHQ_TEMPORAL_PORT=$((BASE + 233)) GITOPSHQ_OPA_PORT=$((BASE + 181)))
env "${HA_ENV[@]}" "${TOOLS_DIR}/dev/run-ha.sh" --replicas 3 --check-ports >/dev/null ||
  die "pick other ports with GITOPSHQ_FAILOVER_PORT_BASE"

rm -rf "${WORK}"
mkdir -p "${LOG_DIR}" "${DRILL_DIR}"
chmod 700 "${WORK}"
"${TOOLS_DIR}/dev/postgres.sh" "${DBS[@]}" >/dev/null
for db in "${DBS[@]}"; do
  as_postgres psql -qAt -v ON_ERROR_STOP=1 -c "drop database if exists ${db} with (force)" >/dev/null
done

# --- the stack ---------------------------------------------------------------------------------
log "starting the HA profile (3 replicas, ports ${BASE}.., log ${WORK#"${REPO_ROOT}"/}/run-ha.log) and the control plane"
ha_launch "${WORK}/run-ha.log" 3 "${HA_ENV[@]}"
KUBE_STARTED=1
"${TOOLS_DIR}/dev/kube.sh" start "${KUBE_DIR}" >"${LOG_DIR}/kube.log" 2>&1 ||
  die "the control plane did not start (see ${LOG_DIR}/kube.log)"
"${TOOLS_DIR}/dev/kube.sh" seed "${KUBE_DIR}" >>"${LOG_DIR}/kube.log" 2>&1 || die "seeding the demo workloads failed (see ${LOG_DIR}/kube.log)"
KC="${KUBE_DIR}/admin.kubeconfig"

ha_await_ready "${READY}" "${UP_TIMEOUT}"
log "stack ready after $((SECONDS - T0)) s"
TOKEN=$(tr -d '[:space:]' <"${TOKEN_FILE}")
CA="${WORK}/state/tls/ca.crt"

# api <METHOD> <path> [body] -> STATUS, BODY (through HAProxy)
api() {
  local out
  local -a args=(-sS -m 30 -X "$1" -H "Authorization: Bearer ${TOKEN}" -H 'Accept: application/json')
  [ -z "${3:-}" ] || args+=(-H 'Content-Type: application/json' --data "$3")
  out=$(curl "${args[@]}" -w $'\n%{http_code}' "${LB_URL}$2" 2>&1) || out=$'\n000'
  STATUS=${out##*$'\n'} BODY=${out%$'\n'*}
}
want() { [ "$STATUS" = "$1" ] || die "$2: expected HTTP $1, got ${STATUS}: ${BODY:0:400}"; }

# --- what the drill works on -------------------------------------------------------------------
log "setting up: cluster ${REAL_CLUSTER} (scale needs approval), an admin approver, project shop (dev: direct mode)"
api POST /api/v2/clusters "{\"name\":\"${REAL_CLUSTER}\",\"environment\":\"dev\"}"
want 201 "registering cluster ${REAL_CLUSTER}"
CLUSTER_ID=$(jq -r '.cluster.id' <<<"$BODY")
REG_TOKEN=$(jq -r '.registrationToken' <<<"$BODY")
api PUT "/api/v2/clusters/${CLUSTER_ID}/approval-policy" '{"requireApproval":["scale"],"requiredApprovers":1}'
want 200 "binding an approval policy that requires approval of scale"
api POST /api/v2/members '{"email":"approver@failover.example","name":"approver","role":"admin"}'
want 201 "creating the approver"
approver_id=$(jq -r '.id' <<<"$BODY")
api POST "/api/v2/members/${approver_id}/tokens" '{"name":"failover","expiresInDays":1}'
want 201 "creating the approver's token"
APPROVER_TOKEN=$(jq -r '.token' <<<"$BODY")

# dev before production: the release policy auto-approves dev and asks an admin only for the last
# environment in the organization's order (policies.md), so the release deploys at once.
for env in dev production; do
  api POST /api/v2/environments "{\"name\":\"${env}\",\"description\":\"failover test\"}"
  [ "$STATUS" = 409 ] || want 201 "creating environment ${env}"
done
api POST /api/v2/tenants '{"name":"demo","displayName":"Demo tenant"}'
want 201 "creating tenant demo"
chart="${WORK}/demo-web-0.1.0.tgz"
tar -C "${TOOLS_DIR}/dev/demo-chart" --owner=0 --group=0 --numeric-owner -czf "${chart}" demo-web
code=$(curl -sS -m 30 -o /dev/null -w '%{http_code}' -X POST -H "Authorization: Bearer ${TOKEN}" \
  -H 'Content-Type: application/gzip' --data-binary "@${chart}" "${LB_URL}/api/v2/charts")
[ "$code" = 201 ] || [ "$code" = 200 ] || die "uploading chart demo-web: HTTP ${code}"
api POST /api/v2/projects '{"name":"shop","description":"failover test: delivered in direct mode"}'
want 201 "creating project shop"
PROJECT_ID=$(jq -r '.id' <<<"$BODY")
api PUT "/api/v2/projects/${PROJECT_ID}/environments/dev" \
  "{\"namespacePattern\":\"{{ .project }}-{{ .environment }}\",\"deliveryMode\":\"direct\",\"clusters\":[{\"cluster\":\"${REAL_CLUSTER}\"}]}"
want 200 "binding environment dev of project shop to ${REAL_CLUSTER} in direct mode"
api PUT "/api/v2/projects/${PROJECT_ID}/tenants/demo"
want 200 "adding tenant demo to project shop"
api POST "/api/v2/projects/${PROJECT_ID}/workloads" '{"name":"web","chart":"demo-web","version":"0.1.0","values":{"replicaCount":2}}'
want 201 "creating workload web of project shop"
api POST "/api/v2/projects/${PROJECT_ID}/deploy-tokens" '{"name":"failover"}'
want 201 "creating a deploy token of project shop"
DEPLOY_TOKEN=$(jq -r '.token' <<<"$BODY")
CLONE_URL=$(jq -r '.cloneUrl' <<<"$BODY")

log "starting the real agent (through HAProxy ${LB_GRPC})"
start_proc agent env \
  GITOPSHQ_HUB_ADDRESS="${LB_GRPC}" GITOPSHQ_HUB_CA_FILE="${CA}" \
  GITOPSHQ_IDENTITY_STORE_MODE=file GITOPSHQ_AGENT_TOKEN_PATH="${WORK}/agent-identity.json" \
  GITOPSHQ_REGISTRATION_TOKEN="${REG_TOKEN}" GITOPSHQ_CLUSTER_NAME="${REAL_CLUSTER}" \
  GITOPSHQ_CAPABILITIES=observe,diagnostics.read,kubernetes.scale,direct.deploy \
  GITOPSHQ_STATUS_INTERVAL_SECONDS=10 KUBECONFIG="${KC}" \
  "${JAVA}" "${JVM_OPTS[@]}" -Xmx256m -jar "${AGENT_JAR}"
connected() { [ -n "$(hub_sql "select connected_replica from clusters where id = '${CLUSTER_ID}' and connected_replica is not null")" ]; }
wait_for "the real agent did not connect" 120 agent connected
info "agent of ${REAL_CLUSTER} connected to $(hub_sql "select connected_replica from clusters where id = '${CLUSTER_ID}'")"
started=${SECONDS}
until POD=$(kubectl --kubeconfig "$KC" -n demo get pods -l app=web \
  -o jsonpath='{.items[?(@.status.phase=="Running")].metadata.name}' 2>/dev/null) && [ -n "$POD" ]; do
  [ $((SECONDS - started)) -lt 120 ] || die "no Running pod of demo/web within 120 s"
  sleep 1
done
POD=${POD%% *}
# The generation of project shop's first revision, so the release does not wait for it.
until [ "$(hub_sql "select count(*) from generations where project_id = '${PROJECT_ID}' and status in ('committed', 'unchanged')" 2>/dev/null || echo 0)" -ge 1 ] ||
      [ $((SECONDS - started)) -ge 180 ]; do sleep 1; done

# --- the drill -----------------------------------------------------------------------------------
log "the drill: ${AGENTS} simulated agents, the loops, the kill (log ${LOG_DIR#"${REPO_ROOT}"/}/drill.log)"
FAILOVER_TOKEN=${TOKEN} FAILOVER_APPROVER_TOKEN=${APPROVER_TOKEN} FAILOVER_DEPLOY_TOKEN=${DEPLOY_TOKEN} \
  "${JAVA}" "${JVM_OPTS[@]}" -Xmx512m -cp "${BENCH_JAR}" dev.gitopshq.bench.FailoverDrill \
  --hub-url "${LB_URL}" --grpc "${LB_GRPC}" --ca "${CA}" --stats-url "${STATS_URL}" --dir "${DRILL_DIR}" \
  --cluster-id "${CLUSTER_ID}" --namespace demo --pod "${POD}" --deployment web --project-id "${PROJECT_ID}" \
  --clone-url "${CLONE_URL}" --agents "${AGENTS}" --bound-seconds "${BOUND}" </dev/null >"${LOG_DIR}/drill.log" 2>&1 &
DRILL_PID=$!
tail -n +1 -f "${LOG_DIR}/drill.log" --pid "${DRILL_PID}" &
TAIL_PID=$!

# On the drill's request: kill the replica holding the real agent's stream, then say when the
# agent's stream is on another replica.
victim=''
while kill -0 "${DRILL_PID}" 2>/dev/null; do
  if [ -z "$victim" ] && [ -f "${DRILL_DIR}/kill-request" ]; then
    victim=$(hub_sql "select connected_replica from clusters where id = '${CLUSTER_ID}'")
    [[ "$victim" =~ ^hub-[0-9]+$ ]] || die "the real agent's stream is on '${victim}', not on a replica of this stack"
    kill -KILL -- "-$(cat "${RUN_DIR}/${victim}.pid")"
    echo "$(date +%s%3N) ${victim}" >"${DRILL_DIR}/killed.tmp" && mv "${DRILL_DIR}/killed.tmp" "${DRILL_DIR}/killed"
    until now=$(hub_sql "select connected_replica from clusters where id = '${CLUSTER_ID}'") &&
          [ -n "$now" ] && [ "$now" != "$victim" ]; do
      kill -0 "${DRILL_PID}" 2>/dev/null || break
      sleep 0.1
    done
    echo "$(date +%s%3N) ${now:-none}" >"${DRILL_DIR}/agent-back.tmp" && mv "${DRILL_DIR}/agent-back.tmp" "${DRILL_DIR}/agent-back"
  fi
  sleep 0.1
done
drill_rc=0
wait "${DRILL_PID}" || drill_rc=$?
DRILL_PID=''
wait "${TAIL_PID}" 2>/dev/null || true
[ "$drill_rc" = 0 ] || FAILED=1
[ -s "${DRILL_DIR}/facts.env" ] || die "the drill ended before the kill (exit ${drill_rc}; see ${LOG_DIR}/drill.log)"
# shellcheck disable=SC1091  # written by the drill
. "${DRILL_DIR}/facts.env"

# --- the agent's and the repository's side -------------------------------------------------------
log "the agent's side (${PROC_LOG[agent]#"${REPO_ROOT}"/}) and the deploy branch"
runs=$(grep -c "running command ${COMMAND_ID}:" "${PROC_LOG[agent]}" || true)
if [ "$runs" = 1 ]; then
  pass "the agent ran command ${COMMAND_ID} once (one 'running command' line in its log)"
else
  fail "the agent ran command ${COMMAND_ID} ${runs} times"
fi
replicas=$(kubectl --kubeconfig "$KC" -n demo get deployment web -o jsonpath='{.spec.replicas}')
if [ "$replicas" = "${SCALE_TARGET}" ]; then
  pass "kube-apiserver: demo/web spec.replicas is ${replicas}"
else
  fail "kube-apiserver: demo/web spec.replicas is ${replicas}, wanted ${SCALE_TARGET}"
fi
applies=$(grep -c "direct apply [^ ]*${DEPLOYMENT_ID}[^ ]*: [0-9]* files" "${PROC_LOG[agent]}" || true)
applied=$(grep -c "direct apply [^ ]*${DEPLOYMENT_ID}[^ ]* SUCCEEDED" "${PROC_LOG[agent]}" || true)
objects=$(kubectl --kubeconfig "$KC" -n shop-dev get deployments -l gitopshq.dev/delivery=direct \
  -o jsonpath='{range .items[*]}{.metadata.name}={.status.readyReplicas}/{.spec.replicas} {end}' 2>/dev/null || true)
if [ "$applies" = 1 ] && [ "$applied" = 1 ] && [ -n "$objects" ]; then
  pass "the agent applied deployment ${DEPLOYMENT_ID} once (succeeded); shop-dev runs ${objects}"
else
  fail "direct apply of ${DEPLOYMENT_ID}: ${applies} applies, ${applied} succeeded in the agent's log; shop-dev: '${objects}'"
fi
clone="${WORK}/shop-check"
if git -c http.extraHeader="Authorization: Bearer ${DEPLOY_TOKEN}" clone -q --bare "${CLONE_URL}" "$clone" 2>/dev/null; then
  commits=$(git -C "$clone" log --format=%s deploy/dev 2>/dev/null | grep -c "^Deploy release #${RELEASE_NUMBER} of shop" || true)
  if [ "$commits" = 1 ]; then
    pass "deploy/dev has one commit of release #${RELEASE_NUMBER}"
  else
    fail "deploy/dev has ${commits} commits of release #${RELEASE_NUMBER}"
  fi
else
  fail "could not clone ${CLONE_URL} after the drill"
fi

stop_proc agent 10
log "failover test took $((SECONDS - T0)) s"
if [ "$FAILED" = 0 ]; then
  log "failover test passed"
else
  die "failover test FAILED (logs: ${WORK#"${REPO_ROOT}"/}/logs/, stack: ${WORK#"${REPO_ROOT}"/}/state/ha/logs/)"
fi
