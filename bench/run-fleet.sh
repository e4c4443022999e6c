#!/usr/bin/env bash
# Benchmark: a fleet of simulated agents on real TLS streams (issue 12, P1 and P2).
#
#   bench/run-fleet.sh [--agents 1000] [--rate 3400] [--seconds 20] [--register-parallelism 16]
#                      [--soak-minutes 0 [--soak-rate 500]] [--storm 1 [--reset-channel-backoff 0|1]]
#
# Starts an isolated stack (bench/lib/stack.sh: fresh PostgreSQL database gitopshq_bench,
# Temporal, OPA, the hub with its gRPC gateway on TLS and -Xmx1g) and, next to it, the baseline
# EchoHub (bench/src/.../EchoHub.java): a bare grpc-java AgentHub server with the same
# certificate, Netty settings and heap limit that answers Hello and heartbeats and nothing else.
# Then dev.gitopshq.bench.FleetBench connects --agents simulated agents to each in turn, one TLS
# connection per agent (for the hub: a real cluster, registration and Connect stream each), and
# measures heap after GC and RSS per connected agent (P2), heartbeats per second at --rate with
# their p50/p99 round trip to the HeartbeatAck, and the rate each server sustains when every
# agent keeps one heartbeat in flight (P1). Prints a table and the ratios, and writes
# bench/results/fleet-<UTC time>.json. Loopback only; stops everything on exit.
#
# --soak-minutes M adds L1 after the hub's measurements: heartbeats at --soak-rate per second for
# M minutes with every agent connected, and after every minute the hub's heap after a full GC, its
# open file descriptors, its PostgreSQL pool (Hikari active/idle/pending) and that minute's p99.
#
# --storm 1 adds L2 after the hub's measurements: with every agent connected, the script kills
# the hub with SIGKILL and starts it again (same database); the agents reconnect with the agent's
# backoff (dev.gitopshq.agent.link.Backoff: full jitter from 1 s, capped at 60 s), and the
# benchmark reports when each came back (from the kill and from the moment the hub was healthy),
# connect attempts per second (the herd and the jitter), how the attempts failed, the REST API's
# answers meanwhile, and the hub's PostgreSQL connections each second (peak and timeline).
# --reset-channel-backoff 1 (the default, as the agent does) resets the gRPC channel's own
# reconnect backoff before every attempt; 0 leaves it, to see what it adds.
#
# File descriptors: one per agent in the measuring JVM and one per agent in the server, so
# --agents 10000 needs `ulimit -n` above ~10,500 (the script raises the soft limit to the hard one).
#
# Env knobs: BENCH_FLEET_HEAP (the hub's and the echo server's -Xmx, default 1g),
# BENCH_JAVA_OPTS (the measuring JVM, default -Xmx1g; use -Xmx3g for 10,000 agents).
#
# Needs `make build` (the jars) and `make tools` (opa, temporal). See bench/README.md.
set -euo pipefail
# shellcheck source-path=SCRIPTDIR source=lib/stack.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib/stack.sh"
# shellcheck source=tools/lib/tls.sh
. "$(dirname "${BASH_SOURCE[0]}")/../tools/lib/tls.sh"

readonly ECHO_PORT="${BENCH_ECHO_PORT:-15052}"

echo_ready() { grep -q '^echo ready ' "${LOG_DIR}/echo.log"; }

# The hub's connections to PostgreSQL (pg_stat_activity of the benchmark's database).
pg_connections() {
  local sql="select count(*) from pg_stat_activity where datname = '${BENCH_DB_NAME}'"
  if [ "$(id -un)" = postgres ]; then
    psql -p "${PG_PORT}" -qAt -c "$sql" 2>/dev/null || echo -1
  else
    runuser -u postgres -- psql -p "${PG_PORT}" -qAt -c "$sql" 2>/dev/null || echo -1
  fi
}

# While the measuring JVM runs: on its request (<dir>/kill-request) kill the hub with SIGKILL,
# write the time (<dir>/killed, epoch ms), start it again and write when it is healthy
# (<dir>/restarted); sample PostgreSQL connections every second into <dir>/pg-connections.
storm_control() {
  local dir=$1 killed=''
  while kill -0 "${BENCH_PID}" 2>/dev/null; do
    if [ -z "$killed" ] && [ -f "$dir/kill-request" ]; then
      kill -KILL "${PROC_PID[hub]}"
      date +%s%3N > "$dir/killed.tmp" && mv "$dir/killed.tmp" "$dir/killed"
      killed=1
      log "hub killed (SIGKILL); starting it again"
      wait "${PROC_PID[hub]}" 2>/dev/null || true
      ( while kill -0 "${BENCH_PID}" 2>/dev/null; do
          echo "$(date +%s) $(pg_connections)"; sleep 1
        done ) >> "$dir/pg-connections" &
      start_hub
      date +%s%3N > "$dir/restarted.tmp" && mv "$dir/restarted.tmp" "$dir/restarted"
      info "hub healthy again"
    fi
    sleep 0.05
  done
}

main() {
  local out heap=${BENCH_FLEET_HEAP:-1g} tls storm='' rc=0
  local -a bench_args=()
  check_options "$0" "agents rate seconds register-parallelism soak-minutes soak-rate storm reset-channel-backoff" "" -- "$@"
  # --storm is the script's; everything else goes to FleetBench (check_options checked them).
  while [ $# -gt 0 ]; do
    case "$1" in
      --storm=*) storm=${1#*=}; shift ;;
      --storm) storm=$2; shift 2 ;;
      *) bench_args+=("$1"); shift ;;
    esac
  done
  [ "$storm" = 1 ] || storm=''
  ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
  port_in_use "${ECHO_PORT}" && die "port ${ECHO_PORT} for the echo server (BENCH_ECHO_PORT) is in use"
  stack_init
  tls="${STACK_DIR}/tls"
  make_local_tls "${tls}" "${HOST}"
  export BENCH_HUB_TLS_DIR="${tls}"
  export BENCH_HUB_JAVA_OPTS="-Xmx${heap} ${BENCH_HUB_JAVA_OPTS:-}"
  stack_start without-kube
  start_proc echo "${JAVA}" "${JVM_OPTS[@]}" "-Xmx${heap}" -cp "${BENCH_JAR}" dev.gitopshq.bench.EchoHub \
    --port "${ECHO_PORT}" --cert "${tls}/hub.crt" --key "${tls}/hub.key"
  wait_for "the echo server did not print 'echo ready'" "${START_TIMEOUT}" echo echo_ready
  out="${RESULTS_DIR}/fleet-$(date -u +%Y%m%dT%H%M%SZ).json"
  log "measuring"
  if [ -n "$storm" ]; then
    mkdir -p "${STACK_DIR}/storm"
    bench_args+=(--storm-dir "${STACK_DIR}/storm")
  fi
  run_bench_start dev.gitopshq.bench.FleetBench \
    --hub-url "${HUB_URL}" --grpc "${HOST}:${HUB_GRPC_PORT}" --hub-pid "${PROC_PID[hub]}" \
    --echo "${HOST}:${ECHO_PORT}" --echo-pid "${PROC_PID[echo]}" \
    --ca "${tls}/ca.crt" --jcmd "${JAVA%/java}/jcmd" --out "${out}" "${bench_args[@]}"
  [ -z "$storm" ] || storm_control "${STACK_DIR}/storm"
  wait "${BENCH_PID}" || rc=$?
  BENCH_PID=''
  if [ -n "$storm" ] && [ -s "${STACK_DIR}/storm/pg-connections" ]; then
    info "hub's PostgreSQL connections per second after the kill (peak $(awk '$2>m{m=$2} END{print m+0}' "${STACK_DIR}/storm/pg-connections")):"
    awk '{printf "%s ", $2} END {print ""}' "${STACK_DIR}/storm/pg-connections"
  fi
  return "$rc"
}

main "$@"
