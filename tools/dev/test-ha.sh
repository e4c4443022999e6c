#!/usr/bin/env bash
# Smoke test of the HA profile (`make test-ha`; on demand, never part of make test or .ci/run:
# about 5 minutes on 2 cores). Starts tools/dev/run-ha.sh on ports and databases of its own
# (so a `make run` or `make run-ha` beside it is not disturbed), then checks what a user of a
# scaled-out hub relies on:
#
#   1. every replica answers the REST API through HAProxy (X-GitOpsHQ-Replica names it), an
#      authenticated GET is 200 on each, an anonymous one 401;
#   2. workflows run on the Temporal server with PostgreSQL: a new project's delivery generation
#      shows up Completed in `temporal workflow list` and in the visibility database;
#   3. the hosted Git answers `git ls-remote` through HAProxy, the agents' gRPC port hands the
#      replica's TLS certificate through, and a WebSocket (a cluster's live logs) is upgraded;
#   4. a replica killed with SIGKILL is marked DOWN and routed around: every request still 200,
#      none from it, and a new generation still completes.
#
# Then it stops everything it started. Exit code 0 only when every check passed.
#
#   tools/dev/test-ha.sh [--replicas N]        (3)
#
# Env knobs: GITOPSHQ_HA_TEST_TIMEOUT (seconds for the stack to come up, 900),
# GITOPSHQ_HUB_JAR / GITOPSHQ_SKIP_JAVA_BUILD as for run-ha.sh.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/ha.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/ha.sh"

REPLICAS=3
case "${1:-}" in
  --replicas) REPLICAS=${2:?--replicas needs a number} ;;
  "") ;;
  *) die "usage: tools/dev/test-ha.sh [--replicas N]" ;;
esac
[[ "$REPLICAS" =~ ^[2-9]$ ]] || die "the smoke test needs 2..9 replicas (one is killed), not '${REPLICAS}'"

readonly UP_TIMEOUT=${GITOPSHQ_HA_TEST_TIMEOUT:-900}
readonly WORK="${STATE_DIR}/ha-test"
readonly READY="${WORK}/ready.env"
readonly DBS=(gitopshq_ha_test temporal_ha_test temporal_visibility_ha_test)
FAILED=0

pass() { printf '    PASS %s\n' "$*"; }
fail() { printf '    FAIL %s\n' "$*" >&2; FAILED=1; }
# expect <actual> <wanted> <pass message> <fail message>
expect() { if [ "$1" = "$2" ]; then pass "$3"; else fail "$4"; fi; }

as_postgres() { if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi; }

trap 'ha_stop' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

# --- a clean stack on ports of its own -----------------------------------------------------------
rm -rf "${WORK}"
mkdir -p "${WORK}"
"${TOOLS_DIR}/dev/postgres.sh" "${DBS[@]}" >/dev/null
# Fresh databases: an owner left from an earlier run would have its token file in a wiped directory.
for db in "${DBS[@]}"; do
  as_postgres psql -qAt -v ON_ERROR_STOP=1 -c "drop database if exists ${db} with (force)" >/dev/null
done

log "starting the HA profile (${REPLICAS} replicas; log ${WORK#"${REPO_ROOT}"/}/run-ha.log)"
ha_launch "${WORK}/run-ha.log" "${REPLICAS}" GITOPSHQ_STATE_DIR="${WORK}/state" GITOPSHQ_HA_READY_FILE="${READY}" \
  GITOPSHQ_HA_DB="${DBS[0]}" GITOPSHQ_HA_TEMPORAL_DB="${DBS[1]}" GITOPSHQ_HA_VISIBILITY_DB="${DBS[2]}" \
  GITOPSHQ_HUB_PORT=28080 GITOPSHQ_GRPC_PORT=28051 GITOPSHQ_HA_STATS_PORT=28404 \
  GITOPSHQ_HA_REPLICA_PORT=28100 GITOPSHQ_TEMPORAL_PORT=27233 GITOPSHQ_OPA_PORT=28181
ha_await_ready "${READY}" "${UP_TIMEOUT}"
log "stack ready after ${SECONDS} s"
TOKEN=$(tr -d '[:space:]' <"${TOKEN_FILE}")

# api <METHOD> <path> [body] -> STATUS, BODY, REPLICA (who answered through HAProxy)
api() {
  local out hdr="${WORK}/headers"
  local -a args=(-sS -m 20 -X "$1" -D "$hdr" -H "Authorization: Bearer ${TOKEN}" -H 'Accept: application/json')
  [ -z "${3:-}" ] || args+=(-H 'Content-Type: application/json' --data "$3")
  out=$(curl "${args[@]}" -w $'\n%{http_code}' "${LB_URL}$2" 2>&1) || out=$'\n000'
  STATUS=${out##*$'\n'} BODY=${out%$'\n'*}
  REPLICA=$(awk 'tolower($1) == "x-gitopshq-replica:" { sub(/\r$/, "", $2); print $2 }' "$hdr" 2>/dev/null || true)
}

# Waits until `temporal workflow list` shows a Completed workflow with this id.
workflow_completed() {
  "${TEMPORAL_CLI}" workflow list --address "${TEMPORAL_ADDRESS}" --query "WorkflowId='$1'" -o json 2>/dev/null |
    grep -q '"status": *"WORKFLOW_EXECUTION_STATUS_COMPLETED"'
}
wait_workflow() {
  local id=$1 until_s=$(( SECONDS + 90 ))
  while ! workflow_completed "$id"; do
    [ "$SECONDS" -lt "$until_s" ] || return 1
    sleep 1
  done
}

# --- 1. every replica through HAProxy --------------------------------------------------------------
log "1. REST through HAProxy"
declare -A seen=()
for _ in $(seq 1 $(( REPLICAS * 3 ))); do
  api GET /api/v2/clusters
  [ "$STATUS" = 200 ] || fail "GET /api/v2/clusters through HAProxy: HTTP ${STATUS} from ${REPLICA:-?}"
  [ -z "$REPLICA" ] || seen[$REPLICA]=1
done
if [ "${#seen[@]}" = "${REPLICAS}" ]; then
  pass "authenticated GET /api/v2/clusters is 200 on every replica: $(printf '%s ' "${!seen[@]}")"
else
  fail "only $(printf '%s ' "${!seen[@]}")answered through HAProxy, expected ${REPLICAS} replicas"
fi
anon=$(curl -s -o /dev/null -m 10 -w '%{http_code}' "${LB_URL}/api/v2/clusters")
expect "$anon" 401 "anonymous GET is 401" "anonymous GET /api/v2/clusters: HTTP ${anon}, expected 401"
for i in $(seq 1 "${REPLICAS}"); do
  url_var="REPLICA_URL_$i"
  code=$(curl -s -o /dev/null -m 5 -w '%{http_code}' "${!url_var}/actuator/health/readiness")
  [ "$code" = 200 ] || fail "hub-$i readiness: HTTP ${code}"
done

# --- 2. workflows on the Temporal server -----------------------------------------------------------
log "2. a delivery generation on the Temporal server"
api POST /api/v2/projects '{"name":"ha-smoke","description":"make test-ha"}'
[ "$STATUS" = 201 ] || die "creating project ha-smoke: HTTP ${STATUS}: ${BODY:0:300}"
PROJECT=$(sed -n 's/.*"id":"\([0-9a-f-]\{36\}\)","name":"ha-smoke".*/\1/p' <<<"$BODY")
[ -n "$PROJECT" ] || die "no project id in: ${BODY:0:300}"
if wait_workflow "delivery-${PROJECT}-r1"; then
  pass "workflow delivery-${PROJECT}-r1 Completed (temporal workflow list --address ${TEMPORAL_ADDRESS})"
else
  fail "delivery-${PROJECT}-r1 did not complete on the Temporal server within 90 s"
fi
vis=$(PGPASSWORD=${GITOPSHQ_PG_PASSWORD:-gitopshq} psql -h 127.0.0.1 -U "${GITOPSHQ_PG_USER:-gitopshq}" -d "${DBS[2]}" -qAtc \
  "select count(*) from executions_visibility where workflow_id = 'delivery-${PROJECT}-r1'")
expect "$vis" 1 "the workflow is in PostgreSQL (${DBS[2]}.executions_visibility)" \
  "delivery-${PROJECT}-r1 is not in ${DBS[2]}.executions_visibility (${vis})"

# --- 3. hosted Git and the agents' gRPC port through HAProxy ---------------------------------------
log "3. hosted Git (HTTP), agent gRPC (TCP) and WebSocket through HAProxy"
api POST "/api/v2/projects/${PROJECT}/deploy-tokens" '{"name":"ha-smoke"}'
deploy_token=$(sed -n 's/.*"token":"\([^"]*\)".*/\1/p' <<<"$BODY")
clone_url=$(sed -n 's/.*"cloneUrl":"\([^"]*\)".*/\1/p' <<<"$BODY")
if [ -n "$deploy_token" ] && git -c http.extraHeader="Authorization: Bearer ${deploy_token}" ls-remote "$clone_url" 2>/dev/null |
     grep -q 'refs/heads/main'; then
  pass "git ls-remote ${clone_url} lists refs/heads/main"
else
  fail "git ls-remote through HAProxy failed (deploy token HTTP ${STATUS})"
fi
if command -v openssl >/dev/null 2>&1; then
  if openssl s_client -connect "${LB_GRPC}" -alpn h2 -CAfile "${WORK}/state/tls/ca.crt" </dev/null 2>/dev/null |
       grep -q 'Verify return code: 0'; then
    pass "TLS with ALPN h2 through ${LB_GRPC} ends on a replica (certificate of the local CA)"
  else
    fail "no verified TLS handshake through ${LB_GRPC}"
  fi
fi

# The UI's WebSocket (a cluster's live logs) is upgraded through HAProxy's HTTP mode.
api POST /api/v2/clusters '{"name":"ha-smoke","displayName":"HA smoke","provider":"on-prem","region":"local","environment":"dev"}'
cluster=$(sed -n 's/.*"cluster":{"id":"\([0-9a-f-]\{36\}\)".*/\1/p' <<<"$BODY")
ws=$(curl -s -i -N --http1.1 -m 4 -H 'Connection: Upgrade' -H 'Upgrade: websocket' -H 'Sec-WebSocket-Version: 13' \
       -H 'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==' -H "Authorization: Bearer ${TOKEN}" \
       "${LB_URL}/api/v2/clusters/${cluster:-none}/logs/ws" 2>/dev/null | head -n 1 | tr -d '\r' || true)
expect "${ws%% *} $(cut -d' ' -f2 <<<"$ws")" "HTTP/1.1 101" "WebSocket upgrade of /api/v2/clusters/…/logs/ws through HAProxy: 101" \
  "WebSocket upgrade through HAProxy answered '${ws}' (cluster HTTP ${STATUS})"

# --- 4. kill a replica ------------------------------------------------------------------------------
log "4. kill hub-2 (SIGKILL) and go on"
victim=$(cat "${RUN_DIR}/hub-2.pid")
kill -KILL -- "-${victim}"
bad=0 from_victim=0
for _ in $(seq 1 20); do
  api GET /api/v2/clusters
  if [ "$STATUS" != 200 ]; then
    bad=$((bad + 1))
    printf '    GET /api/v2/clusters after the kill: HTTP %s from %s: %s\n' "$STATUS" "${REPLICA:-HAProxy}" "${BODY:0:200}" >&2
  fi
  [ "$REPLICA" != hub-2 ] || from_victim=$((from_victim + 1))
  sleep 0.25
done
expect "$bad" 0 "20 requests right after the kill: all 200" "${bad} of 20 requests after the kill were not 200"
expect "$from_victim" 0 "none answered by hub-2" "${from_victim} answers claimed to come from the killed hub-2"
state=$(curl -s -m 5 "${STATS_URL};csv" | awk -F, '$1 == "hub_http" && $2 == "hub-2" { print $18 }')
expect "$state" DOWN "HAProxy marks hub-2 DOWN" "HAProxy says hub-2 is '${state}', expected DOWN"
api POST /api/v2/projects '{"name":"ha-smoke-after","description":"make test-ha, after the kill"}'
after=$(sed -n 's/.*"id":"\([0-9a-f-]\{36\}\)","name":"ha-smoke-after".*/\1/p' <<<"$BODY")
if [ -n "$after" ] && wait_workflow "delivery-${after}-r1"; then
  pass "a generation started after the kill Completed (delivery-${after}-r1)"
else
  fail "no generation completed after the kill (project HTTP ${STATUS})"
fi

ha_stop
if [ "$FAILED" = 0 ]; then
  log "HA smoke test passed (${SECONDS} s)"
else
  die "HA smoke test FAILED (stack log: ${WORK#"${REPO_ROOT}"/}/run-ha.log, process logs: ${WORK#"${REPO_ROOT}"/}/state/ha/logs/)"
fi
