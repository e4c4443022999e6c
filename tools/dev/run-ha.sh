#!/usr/bin/env bash
# The HA profile (`make run-ha`, `tools/dev/run.sh --ha`): the hub as production scales it out,
# on one machine, in the foreground:
#
#   PostgreSQL 15 (system service)  127.0.0.1:5432, databases gitopshq_ha (the hub's),
#                                   temporal and temporal_visibility (Temporal's)
#   Temporal server                 the real server (go.temporal.io/server, tools/build-tools.sh
#                                   temporal-server), not the dev server: frontend 127.0.0.1:7233,
#                                   history, matching and worker services in one process,
#                                   persistence and visibility in PostgreSQL; schema set up and
#                                   upgraded with temporal-sql-tool on every start
#   OPA, one per replica            http://127.0.0.1:8181.. (docs/operations.md: every replica pushes
#                                   its policies into an OPA of its own), each locked to its hub
#   N hub replicas (default 3)      hub-1..hub-N: REST on 127.0.0.1:18081.., agent gRPC with TLS on
#                                   127.0.0.1:18181.., one database (which also holds the hosted
#                                   Git: GITOPSHQ_GIT_STORAGE=postgres), one data directory (the
#                                   bootstrap token file), one encryption key, GITOPSHQ_REPLICA_ID=hub-<i>,
#                                   peer port 127.0.0.1:18281.. with one peer key and mutual TLS
#                                   (a peer CA of its own; forwarding to the replica that holds an
#                                   agent's stream)
#   HAProxy                         http://127.0.0.1:8080 (REST, hosted Git over HTTP, WebSocket;
#                                   HTTP mode) and 127.0.0.1:50051 (agents' gRPC; TCP passthrough,
#                                   TLS ends on the replica); every replica health-checked on
#                                   /actuator/health/readiness; stats http://127.0.0.1:8404/
#
# No demo cluster, agents or SSO provider (make run has those). A hub replica that exits is
# reported and HAProxy routes around it; the rest keep running. Ctrl-C stops everything.
# State and logs: ${GITOPSHQ_STATE_DIR:-.gitopshq}/ha/ (data/, logs/<proc>.log, temporal/ha.yaml,
# haproxy.cfg). Installs HAProxy with apt-get when it is missing (CI runs as root).
#
#   tools/dev/run-ha.sh [--replicas N] [--check-ports]
#
# Env knobs:
#   GITOPSHQ_HA_REPLICAS        number of hub replicas (3)
#   GITOPSHQ_HA_HUB_HEAP        each replica's -Xmx (512m); -Xms is 128m
#   GITOPSHQ_HA_DB              the hub's database (gitopshq_ha)
#   GITOPSHQ_HA_DB_POOL_SIZE    each replica's connection pool (8; plus one listening connection:
#                               5 made 200 agents registering at once wait over 5 s, 503)
#   GITOPSHQ_HA_GIT_STORAGE     the hosted Git's storage (postgres; file keeps it in data/repos,
#                               shared by the replicas as a shared volume would be)
#   GITOPSHQ_HA_TEMPORAL_DB, GITOPSHQ_HA_VISIBILITY_DB   Temporal's (temporal, temporal_visibility)
#   GITOPSHQ_HUB_PORT, GITOPSHQ_GRPC_PORT   HAProxy's ports (8080, 50051)
#   GITOPSHQ_HA_REPLICA_PORT    replica i listens on this + i (REST) and this + 100 + i (gRPC) (18080)
#   GITOPSHQ_HA_STATS_PORT      HAProxy's statistics page (8404)
#   GITOPSHQ_HA_LOAD_BALANCERS  how many HAProxy processes front the replicas (1; at most 4), each
#                               with every frontend and backend: the k-th listens on the three
#                               HAProxy ports above + k - 1. More than one is for fleets beyond one
#                               process's `ulimit -n` (two descriptors per agent), as a pair of load
#                               balancers behind one DNS name would be in production
#   GITOPSHQ_HA_MAXCONN         HAProxy's connection limit, global and on the agents' frontend
#                               (4096; one agent is one connection, and HAProxy needs two file
#                               descriptors per connection within its `ulimit -n`)
#   GITOPSHQ_TEMPORAL_PORT      the Temporal frontend (7233); the other services use the ports
#                               after it (+1 history, +2 matching, +6 worker, +10 frontend HTTP)
#                               and membership ports 300 below each, which the server stores as
#                               smallint: 301 to 33,061
#   GITOPSHQ_OPA_PORT           hub-i's OPA listens on this + i - 1 (8181)
#   GITOPSHQ_HUB_JAR            the hub jar to run (api/target/gitopshq-hub.jar)
#   GITOPSHQ_SKIP_JAVA_BUILD=1  run the jar as it is
#   GITOPSHQ_HUB_TIMEOUT        seconds to wait for each replica to be ready (180)
#   GITOPSHQ_HA_READY_FILE      once everything is up, write the summary's key facts here
#                               (NAME=value lines; tools/dev/test-ha.sh reads them)
#
# Every port it binds is checked before anything starts: free, not held by a connection, and a
# warning for those inside the kernel's ephemeral port range (a client connection may take one
# before its server binds it). `--check-ports` does only that and exits.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/procs.sh"
# shellcheck source=../lib/tls.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tls.sh"

# --- configuration ------------------------------------------------------------
readonly HOST=127.0.0.1
REPLICAS=${GITOPSHQ_HA_REPLICAS:-3}
CHECK_PORTS_ONLY=0
while [ $# -gt 0 ]; do
  case "$1" in
    --replicas) [ $# -ge 2 ] || die "--replicas needs a number"; REPLICAS=$2; shift 2 ;;
    --replicas=*) REPLICAS=${1#*=}; shift ;;
    --check-ports) CHECK_PORTS_ONLY=1; shift ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"; exit 0 ;;
    *) die "unknown argument '$1'; usage: tools/dev/run-ha.sh [--replicas N] [--check-ports]" ;;
  esac
done
[[ "$REPLICAS" =~ ^[1-9][0-9]?$ ]] || die "the number of replicas must be 1..99, not '${REPLICAS}'"
readonly REPLICAS

readonly LB_HTTP_PORT=${GITOPSHQ_HUB_PORT:-8080} LB_GRPC_PORT=${GITOPSHQ_GRPC_PORT:-50051}
readonly STATS_PORT=${GITOPSHQ_HA_STATS_PORT:-8404}
LOAD_BALANCERS=${GITOPSHQ_HA_LOAD_BALANCERS:-1}
[[ "$LOAD_BALANCERS" =~ ^[1-4]$ ]] || die "GITOPSHQ_HA_LOAD_BALANCERS must be 1..4, not '${LOAD_BALANCERS}'"
readonly LOAD_BALANCERS
readonly LB_MAXCONN=${GITOPSHQ_HA_MAXCONN:-4096}
readonly REPLICA_PORT=${GITOPSHQ_HA_REPLICA_PORT:-18080}
readonly TEMPORAL_PORT=${GITOPSHQ_TEMPORAL_PORT:-7233}
# Each Temporal service's membership port is its gRPC port minus this; the server keeps it in a
# smallint column (cluster_membership.rpc_port), so none may exceed 32,767.
readonly MEMBERSHIP_OFFSET=300 SMALLINT_MAX=32767
# The services' gRPC ports after the frontend's (history, matching, worker) and the frontend's HTTP.
readonly HISTORY_OFFSET=1 MATCHING_OFFSET=2 WORKER_OFFSET=6 FRONTEND_HTTP_OFFSET=10
readonly OPA_PORT=${GITOPSHQ_OPA_PORT:-8181}
readonly HUB_HEAP=${GITOPSHQ_HA_HUB_HEAP:-512m}
readonly LB_URL="http://${HOST}:${LB_HTTP_PORT}"
readonly HUB_DB=${GITOPSHQ_HA_DB:-gitopshq_ha}
readonly TEMPORAL_DB=${GITOPSHQ_HA_TEMPORAL_DB:-temporal}
readonly VISIBILITY_DB=${GITOPSHQ_HA_VISIBILITY_DB:-temporal_visibility}
readonly DB_USER=${GITOPSHQ_PG_USER:-gitopshq} DB_PASSWORD=${GITOPSHQ_PG_PASSWORD:-gitopshq}
readonly DB_PORT=${GITOPSHQ_PG_PORT:-5432}
readonly DB_POOL_SIZE=${GITOPSHQ_HA_DB_POOL_SIZE:-8}
readonly HUB_TIMEOUT=${GITOPSHQ_HUB_TIMEOUT:-180} TEMPORAL_TIMEOUT=90 OPA_TIMEOUT=30

readonly HA_DIR="${STATE_DIR}/ha"
readonly DATA_DIR="${HA_DIR}/data"       # shared by every replica: the bootstrap token (and the
                                         # hosted Git with GITOPSHQ_HA_GIT_STORAGE=file)
readonly GIT_STORAGE=${GITOPSHQ_HA_GIT_STORAGE:-postgres}
readonly LOG_DIR="${HA_DIR}/logs"
readonly TLS_DIR="${STATE_DIR}/tls"      # the same local CA as make run's
readonly PEER_TLS_DIR="${HA_DIR}/peer-tls"  # the peer port's own CA and the replicas' certificate
readonly TOKEN_FILE="${DATA_DIR}/bootstrap-token"
readonly KEY_FILE="${HA_DIR}/encryption-key"
readonly PEER_KEY_FILE="${HA_DIR}/peer-key"
readonly TEMPORAL_CONFIG_DIR="${HA_DIR}/temporal"
readonly HAPROXY_CFG="${HA_DIR}/haproxy.cfg"   # the first load balancer's; haproxy-<k>.cfg after it
HUB_JAR=${GITOPSHQ_HUB_JAR:-${REPO_ROOT}/api/target/gitopshq-hub.jar}

STOPPING=0
JAVA=''
JVM_OPTS=()
OPA_BIN='' TEMPORAL_CLI='' TEMPORAL_SERVER='' SQL_TOOL=''
HAPROXY_BIN=''

replica_http_port() { echo $(( REPLICA_PORT + $1 )); }
replica_grpc_port() { echo $(( REPLICA_PORT + 100 + $1 )); }
replica_peer_port() { echo $(( REPLICA_PORT + 200 + $1 )); }
replica_opa_port() { echo $(( OPA_PORT + $1 - 1 )); }
declare -A OPA_TOKENS=()

# --- steps ------------------------------------------------------------------------
check_prerequisites() {
  local missing=0
  command -v curl >/dev/null 2>&1   || { echo "error: curl is missing; install it with: apt-get install -y curl" >&2; missing=1; }
  command -v setsid >/dev/null 2>&1 || { echo "error: setsid is missing; install it with: apt-get install -y util-linux" >&2; missing=1; }
  command -v psql >/dev/null 2>&1   || { echo "error: psql is missing; install it with: apt-get install -y postgresql-client-15" >&2; missing=1; }
  [ "$missing" = 0 ] || exit 1
  java_setup
}

# HAProxy from Debian; installed when missing (as root: CI's fresh machine), else a clear error.
install_haproxy() {
  if command -v haproxy >/dev/null 2>&1; then
    HAPROXY_BIN=$(command -v haproxy)
    return 0
  fi
  [ "$(id -u)" = 0 ] || die "HAProxy is not installed; install it with: sudo apt-get install -y haproxy"
  command -v apt-get >/dev/null 2>&1 || die "HAProxy is not installed and there is no apt-get to install it with"
  log "installing HAProxy (apt-get)"
  apt-get update -qq >/dev/null || die "apt-get update failed"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq haproxy >/dev/null || die "apt-get install haproxy failed"
  # Debian's package starts its own haproxy.service on :80 with /etc/haproxy/haproxy.cfg; ours
  # runs from this script with its own configuration, so the packaged service is not needed.
  if command -v systemctl >/dev/null 2>&1 && [ -d /run/systemd/system ]; then
    systemctl disable --now haproxy >/dev/null 2>&1 || true
  fi
  HAPROXY_BIN=$(command -v haproxy) || die "HAProxy is still missing after apt-get install"
  info "$("${HAPROXY_BIN}" -v | head -n 1)"
}

# Load balancer <k>'s name, configuration and ports (the first is "haproxy" on the ports as set).
lb_name() { if [ "$1" = 1 ]; then echo haproxy; else echo "haproxy-$1"; fi; }
lb_config() { echo "${HA_DIR}/$(lb_name "$1").cfg"; }
lb_http_port() { echo $((LB_HTTP_PORT + $1 - 1)); }
lb_grpc_port() { echo $((LB_GRPC_PORT + $1 - 1)); }
lb_stats_port() { echo $((STATS_PORT + $1 - 1)); }
# Every load balancer's <what> (grpc: host:port; stats: URL), comma separated.
lb_all() {
  local k out=''
  for k in $(seq 1 "${LOAD_BALANCERS}"); do
    case "$1" in
      grpc) out+="${out:+,}${HOST}:$(lb_grpc_port "$k")" ;;
      stats) out+="${out:+,}http://${HOST}:$(lb_stats_port "$k")/" ;;
    esac
  done
  echo "$out"
}

# Every port the profile binds, one "port:what" a line.
bound_ports() {
  local i svc
  for i in $(seq 1 "${LOAD_BALANCERS}"); do
    echo "$(lb_http_port "$i"):$(lb_name "$i") HTTP"
    echo "$(lb_grpc_port "$i"):$(lb_name "$i") gRPC"
    echo "$(lb_stats_port "$i"):$(lb_name "$i") stats"
  done
  for svc in frontend:0 "history:${HISTORY_OFFSET}" "matching:${MATCHING_OFFSET}" "worker:${WORKER_OFFSET}"; do
    echo "$((TEMPORAL_PORT + ${svc#*:})):Temporal ${svc%%:*}"
    echo "$((TEMPORAL_PORT + ${svc#*:} - MEMBERSHIP_OFFSET)):Temporal ${svc%%:*} membership"
  done
  echo "$((TEMPORAL_PORT + FRONTEND_HTTP_OFFSET)):Temporal frontend HTTP"
  for i in $(seq 1 "${REPLICAS}"); do
    echo "$(replica_http_port "$i"):hub-$i REST"
    echo "$(replica_grpc_port "$i"):hub-$i gRPC"
    echo "$(replica_peer_port "$i"):hub-$i peer"
    echo "$(replica_opa_port "$i"):OPA of hub-$i"
  done
}

# The port settings themselves, before anything else: whole numbers, and a Temporal port whose
# membership ports (300 below each service's) are valid ports the server can store as smallint.
check_port_settings() {
  local knob value entry port max_temporal=$(( SMALLINT_MAX + MEMBERSHIP_OFFSET - WORKER_OFFSET ))
  for knob in GITOPSHQ_HUB_PORT:"${LB_HTTP_PORT}" GITOPSHQ_GRPC_PORT:"${LB_GRPC_PORT}" \
              GITOPSHQ_HA_STATS_PORT:"${STATS_PORT}" GITOPSHQ_HA_REPLICA_PORT:"${REPLICA_PORT}" \
              GITOPSHQ_TEMPORAL_PORT:"${TEMPORAL_PORT}" GITOPSHQ_OPA_PORT:"${OPA_PORT}"; do
    value=${knob#*:}
    [[ "$value" =~ ^[1-9][0-9]{0,4}$ ]] || die "${knob%%:*} must be a port number, not '${value}'"
  done
  [ "${TEMPORAL_PORT}" -le "${max_temporal}" ] ||
    die "GITOPSHQ_TEMPORAL_PORT ${TEMPORAL_PORT} is above ${max_temporal}: the Temporal server stores each service's membership port (${MEMBERSHIP_OFFSET} below its port; the worker's is GITOPSHQ_TEMPORAL_PORT + ${WORKER_OFFSET} - ${MEMBERSHIP_OFFSET}) as a smallint, at most ${SMALLINT_MAX}, and would stop at start; pick a lower port"
  [ "${TEMPORAL_PORT}" -gt "${MEMBERSHIP_OFFSET}" ] ||
    die "GITOPSHQ_TEMPORAL_PORT ${TEMPORAL_PORT} is too low: the Temporal server's membership ports are ${MEMBERSHIP_OFFSET} below each service's port"
  while IFS= read -r entry; do
    port=${entry%%:*}
    [ "$port" -le 65535 ] || die "port ${port} (${entry#*:}) is above 65535; pick lower ports (tools/dev/run-ha.sh --help)"
  done < <(bound_ports)
}

# The kernel's ephemeral port range ("32768 60999"), or nothing where /proc does not say.
ephemeral_range() { tr -s '[:space:]' ' ' </proc/sys/net/ipv4/ip_local_port_range 2>/dev/null || true; }

# True when ip_local_reserved_ports ("8080,50000-50100") reserves $1: the kernel never gives it to
# a client connection.
port_reserved() {
  local port=$1 item
  local -a items=()
  IFS=, read -ra items < <(tr -d '[:space:]' </proc/sys/net/ipv4/ip_local_reserved_ports 2>/dev/null) || true
  for item in "${items[@]}"; do
    [ -n "$item" ] || continue
    if [ "$port" -ge "${item%-*}" ] && [ "$port" -le "${item#*-}" ]; then return 0; fi
  done
  return 1
}

# True when a TCP connection holds $1 as its local port right now (a client's ephemeral port): a
# server cannot bind it until that connection ends. Without ss, false.
port_held() {
  command -v ss >/dev/null 2>&1 && [ -n "$(ss -Htn state established "( sport = :$1 )" 2>/dev/null)" ]
}

# Refuses a port that something listens on or that a connection holds. A port inside the kernel's
# ephemeral range is a warning, not a refusal: the default agents' gRPC port 50051 is inside it on
# a stock Linux (32768-60999), and a connection that takes such a port between this check and the
# bind makes that server fail at start, with its log tail shown.
check_ports() {
  local entry port range lo hi in_range=()
  local -a entries
  mapfile -t entries < <(bound_ports)
  require_free_ports "is a previous 'make run' or 'make run-ha' still running?" "${entries[@]}"
  range=$(ephemeral_range)
  lo=${range%% *} hi=$(echo "$range" | cut -d' ' -f2)
  for entry in "${entries[@]}"; do
    port=${entry%%:*}
    if port_held "$port"; then
      die "port ${port} (${entry#*:}) is a connection's local port right now (see: ss -tnp 'sport = :${port}'); pick other ports${range:+, outside the ephemeral range ${lo}-${hi} that client connections take theirs from}"
    fi
    if [ -n "$lo" ] && [ "$port" -ge "$lo" ] && [ "$port" -le "$hi" ] && ! port_reserved "$port"; then
      in_range+=("${port} (${entry#*:})")
    fi
  done
  if [ ${#in_range[@]} -gt 0 ] && [ -z "${EPHEMERAL_WARNED:-}" ]; then
    EPHEMERAL_WARNED=1
    warn "inside the kernel's ephemeral port range ${lo}-${hi} (/proc/sys/net/ipv4/ip_local_port_range): $(printf '%s, ' "${in_range[@]}" | sed 's/, $//'); a client connection can hold such a port when its server comes to bind it, and that server then fails to start. Ports below ${lo} avoid that, as does adding these to the kernel's reserved ports (sysctl net.ipv4.ip_local_reserved_ports): $(printf '%s\n' "${in_range[@]}" | cut -d' ' -f1 | paste -sd,)"
  fi
}

cleanup() {
  local rc=$? i name grace
  [ "$STOPPING" = 0 ] || return 0
  STOPPING=1
  trap 'FORCE_STOP=1' INT TERM
  if [ ${#PROC_PID[@]} -gt 0 ]; then
    log "stopping: $(for ((i=${#PROC_NAMES[@]}-1; i>=0; i--)); do [ -n "${PROC_PID[${PROC_NAMES[$i]}]:-}" ] && printf '%s ' "${PROC_NAMES[$i]}"; done)"
    for ((i=${#PROC_NAMES[@]}-1; i>=0; i--)); do
      name=${PROC_NAMES[$i]}
      case "$name" in hub-*) grace=30 ;; temporal) grace=15 ;; *) grace=10 ;; esac
      stop_proc "$name" "$grace"
    done
    log "stopped (PostgreSQL keeps running; logs are in ${LOG_DIR#"${REPO_ROOT}"/}/)"
  fi
  # Only what this run wrote: a run refused at its checks leaves a running profile's files alone.
  if [ ${#PROC_NAMES[@]} -gt 0 ]; then
    rm -f "${HA_DIR}"/run/*.pid "${GITOPSHQ_HA_READY_FILE:-/nonexistent}" 2>/dev/null || true
  fi
  exit "$rc"
}

prepare_dirs() {
  mkdir -p "${DATA_DIR}" "${LOG_DIR}" "${HA_DIR}/run" "${TEMPORAL_CONFIG_DIR}"
  chmod 700 "${STATE_DIR}" "${HA_DIR}"
  # One key for every replica (docs/install.md: a replica with another key cannot open what the
  # others sealed), made once.
  if [ ! -s "${KEY_FILE}" ]; then
    (umask 077 && head -c 32 /dev/urandom | base64 >"${KEY_FILE}")
  fi
  # One peer key for every replica: a replica forwards a live read, an inventory refresh or a log
  # stream to the replica holding the agent's stream (hub.v1.HubPeer), authenticated with it.
  if [ ! -s "${PEER_KEY_FILE}" ]; then
    (umask 077 && head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n' >"${PEER_KEY_FILE}")
  fi
}

start_postgres() {
  log "PostgreSQL"
  "${TOOLS_DIR}/dev/postgres.sh" "${HUB_DB}" "${TEMPORAL_DB}" "${VISIBILITY_DB}"
}

build_tools() {
  log "tools (opa, temporal CLI, render worker, Temporal server)"
  "${TOOLS_DIR}/build-tools.sh" opa
  "${TOOLS_DIR}/build-tools.sh" temporal
  "${TOOLS_DIR}/build-tools.sh" render-worker
  "${TOOLS_DIR}/build-tools.sh" temporal-server
  OPA_BIN=$("${TOOLS_DIR}/bin-path.sh" opa)
  TEMPORAL_CLI=$("${TOOLS_DIR}/bin-path.sh" temporal)
  TEMPORAL_SERVER=$("${TOOLS_DIR}/bin-path.sh" temporal-server)
  SQL_TOOL=$("${TOOLS_DIR}/bin-path.sh" temporal-sql-tool)
}

build_java() {
  if [ "${GITOPSHQ_SKIP_JAVA_BUILD:-0}" = 1 ] || [ -n "${GITOPSHQ_HUB_JAR:-}" ]; then
    info "Java build skipped: running ${HUB_JAR#"${REPO_ROOT}"/} as it is"
  else
    "${TOOLS_DIR}/dev/build-java.sh" --if-changed
  fi
  [ -f "${HUB_JAR}" ] || die "no hub jar at ${HUB_JAR}; build it with tools/dev/build-java.sh"
  # A copy, as make run does: a build beside the running replicas rewrites api/target.
  mkdir -p "${HA_DIR}/jars"
  cp -f "${HUB_JAR}" "${HA_DIR}/jars/gitopshq-hub.jar.tmp"
  mv -f "${HA_DIR}/jars/gitopshq-hub.jar.tmp" "${HA_DIR}/jars/gitopshq-hub.jar"
  HUB_JAR="${HA_DIR}/jars/gitopshq-hub.jar"
}

sql_tool() {
  "${SQL_TOOL}" --plugin postgres12 --ep "${HOST}" -p "${DB_PORT}" -u "${DB_USER}" --pw "${DB_PASSWORD}" "$@"
}

# Temporal's two databases: the schema at version 0.0 once, then every versioned step the server
# module ships (update-schema is idempotent: an up-to-date database is left alone).
setup_temporal_schema() {
  local db dir schema_dir
  schema_dir="$(dirname "${SQL_TOOL}")/schema"
  log "Temporal schema (temporal-sql-tool, ${schema_dir#"${TOOLS_CACHE}"/})"
  for db in "${TEMPORAL_DB}:temporal" "${VISIBILITY_DB}:visibility"; do
    dir="${schema_dir}/${db#*:}/versioned"
    [ -d "$dir" ] || die "missing ${dir}; rebuild with: rm -rf $(dirname "${SQL_TOOL}") && tools/build-tools.sh temporal-server"
    if [ "$(PGPASSWORD="${DB_PASSWORD}" psql -h "${HOST}" -p "${DB_PORT}" -U "${DB_USER}" -d "${db%%:*}" -qAtc \
          "select count(*) from information_schema.tables where table_schema = 'public' and table_name = 'schema_version'")" = 0 ]; then
      sql_tool --db "${db%%:*}" setup-schema -v 0.0 >>"${LOG_DIR}/temporal-schema.log" 2>&1 ||
        die "temporal-sql-tool setup-schema of ${db%%:*} failed; see ${LOG_DIR}/temporal-schema.log"
    fi
    sql_tool --db "${db%%:*}" update-schema -d "$dir" >>"${LOG_DIR}/temporal-schema.log" 2>&1 ||
      die "temporal-sql-tool update-schema of ${db%%:*} failed; see ${LOG_DIR}/temporal-schema.log"
    info "${db%%:*}: schema $(PGPASSWORD="${DB_PASSWORD}" psql -h "${HOST}" -p "${DB_PORT}" -U "${DB_USER}" -d "${db%%:*}" -qAtc 'select curr_version from schema_version limit 1')"
  done
}

# The server's configuration, generated anew on every start: persistence and visibility on the
# PostgreSQL databases above, the four services in one process on the ports above, and the same
# dynamic configuration the dev server gets (tools/dev/temporal-dev-options). Each service keeps
# pools of its own (4 × (5 + 2) = 28 connections at most): with the replicas' N × (8 + 1), 55 for
# three, that stays inside PostgreSQL's default max_connections of 100; this machine's PostgreSQL
# allows 300, which the other stacks and tests here share.
write_temporal_config() {
  local line key value
  {
    echo "# Generated by tools/dev/run-ha.sh from tools/dev/temporal-dev-options; rewritten on every start."
    while IFS= read -r line; do
      case "$line" in
        --dynamic-config-value) continue ;;
        *=*) key=${line%%=*} value=${line#*=}
             printf '%s:\n  - value: %s\n' "$key" "$value" ;;
      esac
    done < <(temporal_dev_options)
  } >"${TEMPORAL_CONFIG_DIR}/dynamicconfig.yaml"
  # The password is the local development one (postgres.sh); the file stays in the private
  # state directory.
  (umask 077 && cat >"${TEMPORAL_CONFIG_DIR}/ha.yaml" <<EOF
# Generated by tools/dev/run-ha.sh; rewritten on every start.
log:
  stdout: true
  level: warn
persistence:
  defaultStore: postgres-default
  visibilityStore: postgres-visibility
  numHistoryShards: 4
  datastores:
    postgres-default:
      sql:
        pluginName: postgres12
        databaseName: ${TEMPORAL_DB}
        connectAddr: "${HOST}:${DB_PORT}"
        connectProtocol: tcp
        user: ${DB_USER}
        password: ${DB_PASSWORD}
        maxConns: 5
        maxIdleConns: 5
        maxConnLifetime: 1h
    postgres-visibility:
      sql:
        pluginName: postgres12
        databaseName: ${VISIBILITY_DB}
        connectAddr: "${HOST}:${DB_PORT}"
        connectProtocol: tcp
        user: ${DB_USER}
        password: ${DB_PASSWORD}
        maxConns: 2
        maxIdleConns: 2
        maxConnLifetime: 1h
global:
  membership:
    maxJoinDuration: 30s
    broadcastAddress: "${HOST}"
services:
  frontend:
    rpc:
      grpcPort: ${TEMPORAL_PORT}
      membershipPort: $((TEMPORAL_PORT - MEMBERSHIP_OFFSET))
      bindOnLocalHost: true
      httpPort: $((TEMPORAL_PORT + FRONTEND_HTTP_OFFSET))
  history:
    rpc:
      grpcPort: $((TEMPORAL_PORT + HISTORY_OFFSET))
      membershipPort: $((TEMPORAL_PORT + HISTORY_OFFSET - MEMBERSHIP_OFFSET))
      bindOnLocalHost: true
  matching:
    rpc:
      grpcPort: $((TEMPORAL_PORT + MATCHING_OFFSET))
      membershipPort: $((TEMPORAL_PORT + MATCHING_OFFSET - MEMBERSHIP_OFFSET))
      bindOnLocalHost: true
  worker:
    rpc:
      grpcPort: $((TEMPORAL_PORT + WORKER_OFFSET))
      membershipPort: $((TEMPORAL_PORT + WORKER_OFFSET - MEMBERSHIP_OFFSET))
      bindOnLocalHost: true
clusterMetadata:
  enableGlobalNamespace: false
  failoverVersionIncrement: 10
  masterClusterName: active
  currentClusterName: active
  clusterInformation:
    active:
      enabled: true
      initialFailoverVersion: 1
      rpcName: frontend
      rpcAddress: "${HOST}:${TEMPORAL_PORT}"
dcRedirectionPolicy:
  policy: noop
dynamicConfigClient:
  filepath: "${TEMPORAL_CONFIG_DIR}/dynamicconfig.yaml"
  pollInterval: 10s
EOF
  )
}

temporal_serving() {
  port_accepts "${TEMPORAL_PORT}" &&
    "${TEMPORAL_CLI}" operator cluster health --address "${HOST}:${TEMPORAL_PORT}" \
      --command-timeout 3s 2>/dev/null | grep -q SERVING
}

launch_temporal() {
  write_temporal_config
  log "starting the Temporal server (PostgreSQL persistence and visibility)"
  # The server reads <root>/<config>/<env>.yaml: here .gitopshq/ha/temporal/ha.yaml.
  start_proc temporal "${TEMPORAL_SERVER}" --root "${HA_DIR}" --config temporal --env ha \
    --allow-no-auth start
}

namespace_usable() {
  "${TEMPORAL_CLI}" workflow list --namespace default --limit 1 --address "${HOST}:${TEMPORAL_PORT}" >/dev/null 2>&1
}

# The server starts with no namespace; the hub works in "default" (TEMPORAL_NAMESPACE).
await_temporal() {
  wait_for "Temporal did not report SERVING on ${HOST}:${TEMPORAL_PORT}" "${TEMPORAL_TIMEOUT}" temporal temporal_serving
  if ! "${TEMPORAL_CLI}" operator namespace describe --namespace default --address "${HOST}:${TEMPORAL_PORT}" >/dev/null 2>&1; then
    "${TEMPORAL_CLI}" operator namespace create --namespace default --retention 72h \
      --address "${HOST}:${TEMPORAL_PORT}" >>"${PROC_LOG[temporal]}" 2>&1 ||
      die "could not create the Temporal namespace default (see ${PROC_LOG[temporal]})"
    # A new namespace reaches every service's cache within seconds; the hub's workers start
    # polling it right away.
    wait_for "the namespace default did not become usable" 30 temporal namespace_usable
    info "namespace default created"
  fi
  info "Temporal is serving ($(elapsed))"
}

# An OPA per replica, as production runs it (a sidecar each): the hub pushes its policies into
# its OPA, and OPAs shared by several hubs could answer with what another pushed. Each is
# locked to its hub with a token of its own (opa_lockdown).
launch_opa() {
  local i
  log "starting ${REPLICAS} OPA servers (one per replica)"
  for i in $(seq 1 "${REPLICAS}"); do
    opa_lockdown "${HA_DIR}/opa/hub-$i"
    OPA_TOKENS[$i]=${OPA_TOKEN}
    start_proc "opa-$i" "${OPA_BIN}" run --server --h2c --addr "${HOST}:$(replica_opa_port "$i")" --log-level error \
      --skip-version-check "${OPA_AUTH_ARGS[@]}"
  done
}

await_opa() {
  local i
  for i in $(seq 1 "${REPLICAS}"); do
    wait_for "OPA opa-$i did not answer http://${HOST}:$(replica_opa_port "$i")/health" "${OPA_TIMEOUT}" "opa-$i" \
      http_ok "http://${HOST}:$(replica_opa_port "$i")/health"
  done
}

launch_hub() {
  local i=$1 name="hub-$1" render_env
  local -a java_opts=()
  # shellcheck disable=SC2206  # options are split on spaces on purpose
  [ -z "${GITOPSHQ_HUB_JAVA_OPTS:-}" ] || java_opts=(${GITOPSHQ_HUB_JAVA_OPTS})
  mapfile -t render_env < <(hub_render_env)
  mkdir -p "${HA_DIR}/render/${name}"
  start_proc "${name}" env \
    GITOPSHQ_REPLICA_ID="${name}" \
    GITOPSHQ_DB_URL="jdbc:postgresql://${HOST}:${DB_PORT}/${HUB_DB}" \
    GITOPSHQ_DB_USER="${DB_USER}" GITOPSHQ_DB_PASSWORD="${DB_PASSWORD}" GITOPSHQ_DB_POOL_SIZE="${DB_POOL_SIZE}" \
    TEMPORAL_ADDRESS="${HOST}:${TEMPORAL_PORT}" \
    OPA_URL="http://${HOST}:$(replica_opa_port "$i")" GITOPSHQ_OPA_TOKEN="${OPA_TOKENS[$i]}" \
    GITOPSHQ_DATA_DIR="${DATA_DIR}" GITOPSHQ_RENDER_DIR="${HA_DIR}/render/${name}" \
    GITOPSHQ_GIT_STORAGE="${GIT_STORAGE}" \
    GITOPSHQ_ENCRYPTION_KEY="$(cat "${KEY_FILE}")" \
    GITOPSHQ_PEER_KEY="$(cat "${PEER_KEY_FILE}")" GITOPSHQ_PEER_PORT="$(replica_peer_port "$i")" \
    GITOPSHQ_PEER_ADDRESS="${HOST}" GITOPSHQ_PEER_TLS_CA="${PEER_TLS_DIR}/ca.crt" \
    GITOPSHQ_PEER_TLS_CERT="${PEER_TLS_DIR}/hub.crt" GITOPSHQ_PEER_TLS_KEY="${PEER_TLS_DIR}/hub.key" \
    GITOPSHQ_PUBLIC_URL="${LB_URL}" \
    GITOPSHQ_HTTP_PORT="$(replica_http_port "$i")" AGENT_GRPC_PORT="$(replica_grpc_port "$i")" \
    AGENT_GRPC_PUBLIC_ADDRESS="${HOST}:${LB_GRPC_PORT}" \
    AGENT_GRPC_TLS_CERT="${TLS_DIR}/hub.crt" AGENT_GRPC_TLS_KEY="${TLS_DIR}/hub.key" \
    "${render_env[@]}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xms128m -Xmx"${HUB_HEAP}" "${java_opts[@]}" -jar "${HUB_JAR}"
  echo "${PROC_PID[$name]}" >"${HA_DIR}/run/${name}.pid"
}

await_hub() {
  local name="hub-$1"
  wait_for "${name} did not become ready (http://${HOST}:$(replica_http_port "$1")/actuator/health/readiness)" \
    "${HUB_TIMEOUT}" "${name}" http_ok "http://${HOST}:$(replica_http_port "$1")/actuator/health/readiness"
  info "${name} is ready ($(elapsed))"
}

# HAProxy in front of the replicas. HTTP mode for REST, the hosted Git's smart HTTP and the
# UI's WebSocket (an Upgrade becomes a tunnel with its own timeout); TCP mode for the agents'
# gRPC, so TLS ends on the replica with the certificate the agents pin. Both check every replica
# on /actuator/health/readiness: a replica that stops, or says it is not ready (draining on
# shutdown), leaves the rotation within ~3 s. X-GitOpsHQ-Replica says which one answered.
write_haproxy_config() {
  local k=$1 i
  {
    cat <<EOF
# Generated by tools/dev/run-ha.sh; rewritten on every start.
global
  log stdout format raw local0 info
  maxconn ${LB_MAXCONN}

defaults
  log global
  option dontlognull
  timeout connect 3s
  timeout check 2s
  retries 3
  # Every retry goes to another replica (one that was just killed refuses them all)
  option redispatch 1

listen stats
  mode http
  bind ${HOST}:$(lb_stats_port "$k")
  stats enable
  stats uri /
  stats refresh 5s
  timeout client 30s
  timeout server 30s

frontend hub_http
  mode http
  bind ${HOST}:$(lb_http_port "$k")
  option httplog
  option forwardfor
  timeout client 5m
  timeout http-request 30s
  default_backend hub_http

backend hub_http
  mode http
  balance roundrobin
  # Git clones and pushes of big repositories, long-polls
  timeout server 5m
  # An upgraded WebSocket connection: idle this long before it is closed
  timeout tunnel 1h
  option httpchk GET /actuator/health/readiness
  http-check expect status 200
  default-server inter 1s fall 2 rise 2
  http-response set-header X-GitOpsHQ-Replica %s
  # A kept-alive connection to a replica that died between two requests fails only once the
  # request is sent: such reads are retried on another replica, never writes (a POST whose replica
  # died may have committed).
  retry-on conn-failure empty-response response-timeout
  http-request disable-l7-retry unless METH_GET || METH_HEAD || METH_OPTIONS
EOF
    for i in $(seq 1 "${REPLICAS}"); do
      echo "  server hub-$i ${HOST}:$(replica_http_port "$i") check"
    done
    cat <<EOF

frontend hub_grpc
  mode tcp
  bind ${HOST}:$(lb_grpc_port "$k")
  option tcplog
  maxconn ${LB_MAXCONN}
  # An agent's Connect stream lives for hours; its heartbeats keep it busy well within this
  timeout client 1h
  default_backend hub_grpc

backend hub_grpc
  mode tcp
  balance leastconn
  timeout server 1h
  option httpchk GET /actuator/health/readiness
  http-check expect status 200
  default-server inter 1s fall 2 rise 2 on-marked-down shutdown-sessions
EOF
    for i in $(seq 1 "${REPLICAS}"); do
      echo "  server hub-$i ${HOST}:$(replica_grpc_port "$i") check port $(replica_http_port "$i")"
    done
  } >"$(lb_config "$k")"
  "${HAPROXY_BIN}" -c -q -f "$(lb_config "$k")" || die "HAProxy refused $(lb_config "$k")"
}

launch_haproxy() {
  local k name
  for k in $(seq 1 "${LOAD_BALANCERS}"); do
    name=$(lb_name "$k")
    write_haproxy_config "$k"
    log "starting ${name} (HAProxy)"
    start_proc "$name" "${HAPROXY_BIN}" -db -f "$(lb_config "$k")"
    echo "${PROC_PID[$name]}" >"${HA_DIR}/run/${name}.pid"
  done
}

# Ready when every replica that is alive is UP in load balancer <k>'s view (its statistics as CSV).
lb_up() {
  local up
  up=$(curl -s -m 3 "http://${HOST}:$(lb_stats_port "$2")/;csv" | awk -F, '$1 == "hub_http" && $2 ~ /^hub-/ && $18 == "UP"' | wc -l)
  [ "$up" -ge "$1" ]
}

await_haproxy() {
  local k
  for k in $(seq 1 "${LOAD_BALANCERS}"); do
    wait_for "$(lb_name "$k") did not see ${REPLICAS} replicas UP (http://${HOST}:$(lb_stats_port "$k")/)" 30 "$(lb_name "$k")" lb_up "${REPLICAS}" "$k"
  done
  info "HAProxy routes to ${REPLICAS} replicas ($(elapsed))"
}

elapsed() { echo "${SECONDS}s"; }

read_api_token() {
  local deadline=$(( SECONDS + 10 ))
  if [ -n "${GITOPSHQ_BOOTSTRAP_TOKEN:-}" ]; then return 0; fi
  while [ ! -s "${TOKEN_FILE}" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
  [ -s "${TOKEN_FILE}" ] ||
    die "the hub did not write ${TOKEN_FILE#"${REPO_ROOT}"/}: database ${HUB_DB} already has an owner from an earlier run whose token file is gone; drop it (dropdb ${HUB_DB}) or set GITOPSHQ_BOOTSTRAP_TOKEN"
}

print_summary() {
  local rel_tok=${TOKEN_FILE#"${REPO_ROOT}"/} i
  log "ready after ${SECONDS} s"
  cat <<EOF

  GitOpsHQ HA profile is running (Ctrl-C stops it)

  Web UI               ${LB_URL}/   (through HAProxy; sign in with the owner API token below)
  Hub REST             ${LB_URL}/api/v2
  Hosted Git           ${LB_URL}/git/...   (smart HTTP through HAProxy)
  Agent gRPC (TLS)     ${HOST}:${LB_GRPC_PORT}   (HAProxy TCP passthrough; local CA: ${TLS_DIR#"${REPO_ROOT}"/}/ca.crt)
  HAProxy statistics   http://${HOST}:${STATS_PORT}/   (config ${HAPROXY_CFG#"${REPO_ROOT}"/})$(
    [ "${LOAD_BALANCERS}" = 1 ] || printf '\n  More load balancers  %s: gRPC %s, statistics %s' \
      "$(seq -s, 2 "${LOAD_BALANCERS}")" "$(lb_all grpc)" "$(lb_all stats)")
  Hub replicas         $(for i in $(seq 1 "${REPLICAS}"); do printf 'hub-%s http://%s:%s  ' "$i" "${HOST}" "$(replica_http_port "$i")"; done)
                       each -Xmx${HUB_HEAP}; the answering one is in the X-GitOpsHQ-Replica header
  Temporal server      ${HOST}:${TEMPORAL_PORT}   (no Web UI in this profile; persistence ${TEMPORAL_DB},
                       visibility ${VISIBILITY_DB}; config ${TEMPORAL_CONFIG_DIR#"${REPO_ROOT}"/}/ha.yaml)
                       $("${TOOLS_DIR}/bin-path.sh" --no-check temporal) workflow list --address ${HOST}:${TEMPORAL_PORT}
  OPA                  one per replica: $(for i in $(seq 1 "${REPLICAS}"); do printf 'http://%s:%s  ' "${HOST}" "$(replica_opa_port "$i")"; done)
  PostgreSQL           jdbc:postgresql://${HOST}:${DB_PORT}/${HUB_DB} (user ${DB_USER}; keeps running after Ctrl-C)

  Log in with the owner API token in ${rel_tok}, e.g.
    curl -i -H "Authorization: Bearer \$(cat ${rel_tok})" ${LB_URL}/api/v2/clusters

  Logs                 ${LOG_DIR#"${REPO_ROOT}"/}/{$(IFS=,; echo "${PROC_NAMES[*]}")}.log

EOF
  if [ -n "${GITOPSHQ_HA_READY_FILE:-}" ]; then
    {
      echo "LB_URL=${LB_URL}"
      echo "LB_GRPC=${HOST}:${LB_GRPC_PORT}"
      echo "STATS_URL=http://${HOST}:${STATS_PORT}/"
      echo "LB_GRPC_ALL=$(lb_all grpc)"
      echo "STATS_URL_ALL=$(lb_all stats)"
      echo "TEMPORAL_ADDRESS=${HOST}:${TEMPORAL_PORT}"
      echo "TEMPORAL_CLI=${TEMPORAL_CLI}"
      echo "TOKEN_FILE=${TOKEN_FILE}"
      echo "REPLICAS=${REPLICAS}"
      echo "RUN_DIR=${HA_DIR}/run"
      for i in $(seq 1 "${REPLICAS}"); do echo "REPLICA_URL_$i=http://${HOST}:$(replica_http_port "$i")"; done
    } >"${GITOPSHQ_HA_READY_FILE}.tmp"
    mv -f "${GITOPSHQ_HA_READY_FILE}.tmp" "${GITOPSHQ_HA_READY_FILE}"
  fi
}

# Until Ctrl-C. A hub replica that exits is reported once and left down (HAProxy routes around
# it); Temporal, OPA or HAProxy exiting, or the last replica, stops everything.
supervise() {
  local name alive
  while :; do
    alive=0
    for name in "${PROC_NAMES[@]}"; do
      [ -n "${PROC_PID[$name]:-}" ] || continue
      if proc_alive "$name"; then
        case "$name" in hub-*) alive=$((alive + 1)) ;; esac
        continue
      fi
      case "$name" in
        hub-*)
          proc_exit_code "$name"
          unset 'PROC_PID[$name]'
          rm -f "${HA_DIR}/run/${name}.pid"
          warn "${name} exited (code ${PROC_RC}); HAProxy routes around it, the other replicas keep serving"
          ;;
        *) died "$name" ;;
      esac
    done
    [ "$alive" -gt 0 ] || die "no hub replica is left running; stopping the rest"
    sleep 1
  done
}

main() {
  cd "${REPO_ROOT}"
  trap cleanup EXIT
  trap 'echo; exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP

  check_port_settings
  check_ports
  [ "${CHECK_PORTS_ONLY}" = 0 ] || { log "ports free: $(bound_ports | cut -d: -f1 | paste -sd' ')"; exit 0; }
  check_prerequisites
  install_haproxy
  prepare_dirs
  make_local_tls "${TLS_DIR}" "${HOST}"
  # Another CA for the peer port, so a certificate made for agents' gateway is no peer's.
  make_local_tls "${PEER_TLS_DIR}" "${HOST}"
  start_postgres
  build_tools
  build_java
  check_ports
  setup_temporal_schema
  launch_temporal
  launch_opa
  await_opa
  await_temporal
  # The first replica alone: it runs the Flyway migrations and creates the owner; the others
  # start together once it is ready.
  launch_hub 1
  await_hub 1
  read_api_token
  local i
  for i in $(seq 2 "${REPLICAS}"); do launch_hub "$i"; done
  for i in $(seq 2 "${REPLICAS}"); do await_hub "$i"; done
  launch_haproxy
  await_haproxy
  print_summary
  supervise
}

main "$@"
