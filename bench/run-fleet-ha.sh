#!/usr/bin/env bash
# Benchmark: the fleet (issue 28: P1, P2 and the reconnect storm) against one hub replica and
# against three, both behind HAProxy, in one run.
#
#   bench/run-fleet-ha.sh [--agents 1000] [--rate 3400] [--seconds 20] [--register-parallelism 8]
#                         [--replicas 3] [--kill 2] [--resume bench/results/fleet-ha1-<time>.json]
#                         [--register-only 1 | --registered 1]
#
# Starts the HA profile (tools/dev/run-ha.sh: the real Temporal server on PostgreSQL, an OPA per
# replica, hub replicas with peer forwarding, HAProxy in front with the agents' gRPC as TCP
# passthrough) twice, on ports and databases of its own:
#
#   0. with one replica: dev.gitopshq.bench.FleetBench --register-only creates --agents clusters
#      through HAProxy and registers them (8 at a time unless --register-parallelism says
#      otherwise: each replica has a pool of 8 PostgreSQL connections), without streams, and keeps
#      the agents' tokens: the fleet's set-up, timed (clusters per second) but not what is compared;
#   1. still one replica: the agents connect, one TLS stream each, then heap after GC and RSS per
#      connected agent (P2) and heartbeats per second at --rate and saturated, with p50/p99 (P1),
#      as bench/run-fleet.sh does against the bare hub;
#   2. with --replicas replicas on the same databases: the same agents connect again, the same
#      measurements, summed over the replicas and per replica, with the
#      agents' spread over the replicas (HAProxy's current sessions per server; the agents'
#      backend balances leastconn). Then the storm: replica hub-<--kill> gets SIGKILL and is not
#      started again; its agents reconnect with the agent's backoff through HAProxy to the
#      others: when each came back (p50/p99/max from the kill), connect attempts per second, how
#      attempts failed, the REST API's answers through HAProxy meanwhile, and where the agents
#      and the survivors' memory are afterwards.
#
# The second run's output ends with both rows and the ratios (N replicas / 1); its JSON,
# bench/results/fleet-ha-<UTC time>.json, holds both (the first is fleet-ha1-<UTC time>.json, the
# registration's rate fleet-ha-registration-<UTC time>.json).
# --resume skips steps 0 and 1: the databases, the agents' tokens
# (bench/target/stack-ha/bench/agents.tsv) and that report of a run whose second part failed are
# used as they are. --register-only 1 runs step 0 alone and keeps the databases and tokens;
# --registered 1 then starts at step 1 with them: registering 10,000 clusters takes half an hour
# on this 2-core machine and needs no quiet machine, the measurements do.
#
# The comparison is one replica behind the same HAProxy, not run-fleet.sh's bare hub: same
# Temporal server, PostgreSQL pool, OPA arrangement, load-balancer hop and TLS passthrough, so the
# replica count is the only difference.
#
# File descriptors: the measuring JVM holds one per agent, HAProxy two per agent (client and
# server side), so one HAProxy takes at most about (`ulimit -n` - 600) / 2 agents: ~9,700 at this
# machine's hard limit of 20,000. The script raises the soft limit to the hard one and starts as
# many HAProxy processes as the agents need (run-ha.sh's GITOPSHQ_HA_LOAD_BALANCERS, up to 4: for
# 10,000 agents two), each in front of every replica; the agents take them in turn, as a fleet
# behind one DNS name with two addresses would. HAProxy's maxconn (GITOPSHQ_HA_MAXCONN) is each
# one's share of the agents plus 200.
#
# Env knobs:
#   BENCH_HA_HEAP          each replica's -Xmx (1g; 2g for 10,000 agents: one replica holds them all)
#   BENCH_HA_LOAD_BALANCERS  at least this many HAProxies (1; more are started when the agents need
#                          them), e.g. 2 to try the split with a small fleet
#   BENCH_HA_POOL          each replica's PostgreSQL pool (8, run-ha.sh's default: a pool of 5
#                          answered registrations 503 and closed streams "hub database unavailable"
#                          at 16 registrations in parallel on a loaded machine; 3 x (8 + 1) plus the
#                          Temporal server's 28 at most is 55 of PostgreSQL's 300 connections here,
#                          which other stacks on this machine share)
#   BENCH_JAVA_OPTS        the measuring JVM (-Xmx1g; -Xmx3g for 10,000 agents)
#   BENCH_HA_PORT_BASE     26000, below the ephemeral ports (32768-60999: a client connection
#                          held 38000 when HAProxy came to bind it): HAProxy REST on it, agents'
#                          gRPC +51, stats +404; replicas' REST +80+i, gRPC +180+i, peer +280+i;
#                          OPA +480+i
#   BENCH_HA_TEMPORAL_PORT the Temporal frontend (29233); the server's other ports follow it (up to
#                          +6, the worker) and its membership ports are 300 below each, stored as
#                          smallint: at most 33,061 (run-ha.sh refuses more)
#   BENCH_HA_DB            gitopshq_bench_ha (Temporal's: temporal_bench_ha and
#                          temporal_visibility_bench_ha; all three are dropped first)
#   BENCH_HA_HUB_TIMEOUT   seconds for each replica to become ready (600)
#   BENCH_HA_STATE_DIR     bench/target/stack-ha: run-ha.sh's state and logs (ha/logs/)
#
# Needs `make build` (the jars), `make tools` (opa, temporal, temporal-server) and HAProxy.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"

readonly PORT_BASE=${BENCH_HA_PORT_BASE:-26000}
readonly HA_DB=${BENCH_HA_DB:-gitopshq_bench_ha}
readonly HA_TEMPORAL_DB=temporal_bench_ha HA_VISIBILITY_DB=temporal_visibility_bench_ha
readonly HA_STATE=${BENCH_HA_STATE_DIR:-${BENCH_DIR}/target/stack-ha}
readonly HA_READY="${HA_STATE}/ready"
readonly LB_HTTP="http://${HOST}:${PORT_BASE}"
# Every HAProxy's agents' gRPC address and statistics page, comma separated (from the ready file).
LB_GRPC='' STATS=''
# Temporal keeps its membership ports (300 below each service port) in a smallint column: the
# frontend port must be at most 33,061 (the worker's, frontend + 6 - 300, at most 32,767).
readonly TEMPORAL_HA_PORT=${BENCH_HA_TEMPORAL_PORT:-29233}
readonly WORK="${HA_STATE}/bench"
HA_NAME=''

ha_ready() { [ -s "${HA_READY}" ]; }

# PostgreSQL's free connection slots (max_connections minus the connections open now).
pg_free_slots() {
  local sql="select (select setting::int from pg_settings where name = 'max_connections') - count(*) from pg_stat_activity"
  if [ "$(id -un)" = postgres ]; then
    psql -p "${PG_PORT}" -qAt -c "$sql" 2>/dev/null || echo 0
  else
    runuser -u postgres -- psql -p "${PG_PORT}" -qAt -c "$sql" 2>/dev/null || echo 0
  fi
}

# Starts run-ha.sh with <replicas> replicas and waits for its ready file. PostgreSQL's
# connections are shared with other stacks on this machine: first wait (up to 10 min) until the
# replicas' pools (each plus its listening connection) and the Temporal server's (4 services ×
# (5 + 2), run-ha.sh's write_temporal_config) fit.
start_ha() {
  local n=$1 maxconn=$2 lbs=$3 need deadline=$(( SECONDS + 600 ))
  need=$(( n * (${BENCH_HA_POOL:-8} + 1) + 28 ))
  until [ "$(pg_free_slots)" -ge "$need" ]; do
    [ "$SECONDS" -lt "$deadline" ] || die "PostgreSQL has fewer than ${need} free connections (others use them); try again later"
    info "waiting for ${need} free PostgreSQL connections (now $(pg_free_slots))"
    sleep 10
  done
  rm -f "${HA_READY}"
  HA_NAME="ha-$n"
  log "starting the HA profile with ${n} replica(s) (tools/dev/run-ha.sh; log ${LOG_DIR#"${REPO_ROOT}"/}/${HA_NAME}.log)"
  start_proc "${HA_NAME}" env \
    GITOPSHQ_STATE_DIR="${HA_STATE}" GITOPSHQ_HA_REPLICAS="$n" GITOPSHQ_SKIP_JAVA_BUILD=1 \
    GITOPSHQ_HA_HUB_HEAP="${BENCH_HA_HEAP:-1g}" GITOPSHQ_HA_MAXCONN="${maxconn}" \
    GITOPSHQ_HA_LOAD_BALANCERS="${lbs}" \
    GITOPSHQ_HA_DB_POOL_SIZE="${BENCH_HA_POOL:-8}" \
    GITOPSHQ_HA_DB="${HA_DB}" GITOPSHQ_HA_TEMPORAL_DB="${HA_TEMPORAL_DB}" \
    GITOPSHQ_HA_VISIBILITY_DB="${HA_VISIBILITY_DB}" \
    GITOPSHQ_HUB_PORT="${PORT_BASE}" GITOPSHQ_GRPC_PORT="$((PORT_BASE + 51))" \
    GITOPSHQ_HA_STATS_PORT="$((PORT_BASE + 404))" GITOPSHQ_HA_REPLICA_PORT="$((PORT_BASE + 80))" \
    GITOPSHQ_OPA_PORT="$((PORT_BASE + 481))" GITOPSHQ_TEMPORAL_PORT="${TEMPORAL_HA_PORT}" \
    GITOPSHQ_HA_READY_FILE="${HA_READY}" GITOPSHQ_HUB_TIMEOUT="${BENCH_HA_HUB_TIMEOUT:-600}" \
    "${REPO_ROOT}/tools/dev/run-ha.sh"
  wait_for "the HA profile with ${n} replica(s) was not ready" 600 "${HA_NAME}" ha_ready
  LB_GRPC=$(sed -n 's/^LB_GRPC_ALL=//p' "${HA_READY}")
  STATS=$(sed -n 's/^STATS_URL_ALL=//p' "${HA_READY}")
  info "HA profile ready (agents' gRPC through ${LB_GRPC})"
}

stop_ha() {
  [ -n "${HA_NAME}" ] || return 0
  log "stopping the HA profile (${HA_NAME})"
  stop_proc "${HA_NAME}" 150
  HA_NAME=''
}

# hub-1=<pid>,hub-2=<pid>,... from run-ha.sh's pid files.
replica_pids() {
  local n=$1 i out=''
  for i in $(seq 1 "$n"); do
    out+="${out:+,}hub-$i=$(cat "${HA_STATE}/ha/run/hub-$i.pid")"
  done
  echo "$out"
}

# While the measuring JVM runs: on its request (<dir>/kill-request) kill replica hub-<kill> with
# SIGKILL and write which one (<dir>/killed-replica) and when (<dir>/killed, epoch ms).
storm_control() {
  local dir=$1 kill=$2 pid
  while kill -0 "${BENCH_PID}" 2>/dev/null; do
    if [ -f "$dir/kill-request" ]; then
      pid=$(cat "${HA_STATE}/ha/run/hub-${kill}.pid")
      echo "hub-${kill}" > "$dir/killed-replica"
      kill -KILL "$pid"
      date +%s%3N > "$dir/killed.tmp" && mv "$dir/killed.tmp" "$dir/killed"
      log "hub-${kill} killed (SIGKILL, pid ${pid}); it is not started again"
      break
    fi
    sleep 0.05
  done
}

ha_stack_stop() {
  local rc=$?
  trap '' INT TERM
  if [ -n "${BENCH_PID}" ] && kill -0 "${BENCH_PID}" 2>/dev/null; then
    kill -KILL "${BENCH_PID}" 2>/dev/null || true
  fi
  stop_ha || true
  exit "$rc"
}

drop_databases() {
  local db sql
  for db in "${HA_DB}" "${HA_TEMPORAL_DB}" "${HA_VISIBILITY_DB}"; do
    sql="drop database if exists ${db} with (force)"
    if [ "$(id -un)" = postgres ]; then
      psql -p "${PG_PORT}" -qAt -c "$sql" >/dev/null
    else
      runuser -u postgres -- psql -p "${PG_PORT}" -qAt -c "$sql" >/dev/null
    fi
  done
}

main() {
  local agents=1000 replicas=3 kill=2 maxconn lbs=${BENCH_HA_LOAD_BALANCERS:-1} stamp one three rc=0 resume=''
  local register_only=0 registered=0
  local -a bench_args=()
  check_options "$0" "agents rate seconds register-parallelism replicas kill register-only registered" "resume" -- "$@"
  while [ $# -gt 0 ]; do
    case "$1" in
      --register-only=*) register_only=${1#*=}; shift ;;
      --register-only) register_only=$2; shift 2 ;;
      --registered=*) registered=${1#*=}; shift ;;
      --registered) registered=$2; shift 2 ;;
      --resume=*) resume=${1#*=}; shift ;;
      --resume) resume=$2; shift 2 ;;
      --replicas=*) replicas=${1#*=}; shift ;;
      --replicas) replicas=$2; shift 2 ;;
      --kill=*) kill=${1#*=}; shift ;;
      --kill) kill=$2; shift 2 ;;
      --agents=*) agents=${1#*=}; bench_args+=("$1"); shift ;;
      --agents) agents=$2; bench_args+=("$1" "$2"); shift 2 ;;
      --*=*) bench_args+=("$1"); shift ;;
      *) bench_args+=("$1" "$2"); shift 2 ;;
    esac
  done
  if [ "$replicas" -lt 2 ] || [ "$replicas" -gt 9 ]; then die "--replicas must be 2..9"; fi
  if [ "$kill" -lt 1 ] || [ "$kill" -gt "$replicas" ]; then die "--kill must name a replica, 1..${replicas}"; fi
  if [ "$register_only" = 1 ] && { [ "$registered" = 1 ] || [ -n "$resume" ]; }; then
    die "--register-only registers a new fleet; it goes with neither --registered nor --resume"
  fi
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  [ $((agents + 500)) -le "$(ulimit -n)" ] ||
    die "--agents ${agents}: the measuring JVM holds a file descriptor per agent, more than ulimit -n ($(ulimit -n)) allows"
  # The fewest HAProxies whose share of the agents fits one process's descriptors (two per agent).
  until [ $(( 2 * ((agents + lbs - 1) / lbs + 200) + 200 )) -le "$(ulimit -n)" ]; do
    lbs=$((lbs + 1))
    [ "$lbs" -le 4 ] || die "--agents ${agents}: even four HAProxies would each need more file descriptors than ulimit -n ($(ulimit -n)) allows"
  done
  maxconn=$(( (agents + lbs - 1) / lbs + 200 ))
  [ "$lbs" = 1 ] || info "${lbs} HAProxies in front of the replicas, ${maxconn} connections each at most (ulimit -n $(ulimit -n))"
  command -v haproxy >/dev/null 2>&1 || die "HAProxy is not installed: apt-get install -y haproxy"
  java_setup
  for jar in "${HUB_JAR}" "${AGENT_JAR}"; do
    [ -f "$jar" ] || die "${jar#"${REPO_ROOT}"/} is missing; build the Java artifacts first: make build"
  done
  build_bench_jar
  check_machine_idle
  mkdir -p "${LOG_DIR}" "${RESULTS_DIR}" "${HA_STATE}"
  if [ -n "$resume" ] || [ "$registered" = 1 ]; then
    [ "$(wc -l < "${WORK}/agents.tsv" 2>/dev/null || echo 0)" -ge "$agents" ] ||
      die "${resume:+--resume}${resume:---registered}: fewer than ${agents} agents' tokens in ${WORK#"${REPO_ROOT}"/}/agents.tsv (run with --register-only 1 first)"
    rm -rf "${WORK}/storm" "${HA_STATE}/ha/run"
  else
    rm -rf "${WORK}" "${HA_STATE}/ha/run"
  fi
  mkdir -p "${WORK}/storm"
  chmod 700 "${HA_STATE}" "${WORK}"
  trap ha_stack_stop EXIT
  trap 'echo; exit 130' INT
  trap 'exit 143' TERM

  stamp=$(date -u +%Y%m%dT%H%M%SZ)
  three="${RESULTS_DIR}/fleet-ha-${stamp}.json"
  if [ -n "$resume" ]; then
    one=$resume
    info "resuming: 1 replica measured in ${one#"${REPO_ROOT}"/}"
  else
    one="${RESULTS_DIR}/fleet-ha1-${stamp}.json"
    if [ "$registered" != 1 ]; then
      log "dropping ${HA_DB}, ${HA_TEMPORAL_DB}, ${HA_VISIBILITY_DB}"
      drop_databases
      rm -rf "${HA_STATE}/ha/data"
    fi
    start_ha 1 "${maxconn}" "${lbs}"
    OWNER_TOKEN=$(cat "${HA_STATE}/ha/data/bootstrap-token")
    if [ "$registered" != 1 ]; then
      log "registering ${agents} clusters through HAProxy, no streams (the set-up; load $(cut -d' ' -f1-3 /proc/loadavg))"
      run_bench dev.gitopshq.bench.FleetBench \
        --label "registration" --hub-url "${LB_HTTP}" --grpc "${LB_GRPC}" --hub-pid "$(replica_pids 1)" \
        --ca "${HA_STATE}/tls/ca.crt" --jcmd "${JAVA%/java}/jcmd" --register-only 1 \
        --save-agents "${WORK}/agents.tsv" --out "${RESULTS_DIR}/fleet-ha-registration-${stamp}.json" \
        --register-parallelism 8 "${bench_args[@]}"
      if [ "$register_only" = 1 ]; then
        stop_ha
        info "registered; measure with: bench/run-fleet-ha.sh --agents ${agents} --registered 1"
        return 0
      fi
    fi
    log "measuring: 1 replica behind HAProxy (load $(cut -d' ' -f1-3 /proc/loadavg))"
    run_bench dev.gitopshq.bench.FleetBench \
      --label "1 replica" --hub-url "${LB_HTTP}" --grpc "${LB_GRPC}" --hub-pid "$(replica_pids 1)" \
      --haproxy-stats "${STATS}" --ca "${HA_STATE}/tls/ca.crt" --jcmd "${JAVA%/java}/jcmd" \
      --agents-from "${WORK}/agents.tsv" --out "${one}" "${bench_args[@]}"
    stop_ha
  fi

  start_ha "$replicas" "${maxconn}" "${lbs}"
  OWNER_TOKEN=$(cat "${HA_STATE}/ha/data/bootstrap-token")
  log "measuring: ${replicas} replicas behind HAProxy, then the storm (load $(cut -d' ' -f1-3 /proc/loadavg))"
  run_bench_start dev.gitopshq.bench.FleetBench \
    --label "${replicas} replicas" --hub-url "${LB_HTTP}" --grpc "${LB_GRPC}" \
    --hub-pid "$(replica_pids "$replicas")" --haproxy-stats "${STATS}" \
    --ca "${HA_STATE}/tls/ca.crt" --jcmd "${JAVA%/java}/jcmd" \
    --agents-from "${WORK}/agents.tsv" --storm-dir "${WORK}/storm" --storm-restart 0 \
    --compare-with "${one}" --out "${three}" "${bench_args[@]}"
  storm_control "${WORK}/storm" "$kill"
  wait "${BENCH_PID}" || rc=$?
  BENCH_PID=''
  info "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
  # The tokens of a fleet registered apart (--register-only) stay for another measurement.
  [ "$registered" = 1 ] || rm -f "${WORK}/agents.tsv"
  return "$rc"
}

main "$@"
