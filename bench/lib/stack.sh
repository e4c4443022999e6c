# shellcheck shell=bash
# The isolated stack the benchmarks run against. Source it from a bench/run-*.sh
# script; nothing runs on sourcing.
#
#   PostgreSQL 15 (system service)   127.0.0.1:5432, database gitopshq_bench, dropped
#                                    and recreated on every run
#   Temporal dev server              127.0.0.1:17233, headless, SQLite file in the run dir
#   OPA                              http://127.0.0.1:18181
#   hub                              http://127.0.0.1:18080, gRPC :15051
#   a Kubernetes API + one agent     only for the command benchmark (stack_start_agent):
#                                    BENCH_KUBE=testkube (default) the Fabric8 mock server;
#                                    BENCH_KUBE=real a real control plane from tools/dev/kube.sh
#                                    (etcd, kube-apiserver, controllers, kwok) seeded with the
#                                    demo workloads. The agent's scale takes ~20 ms on either;
#                                    the real one also keeps the machine's CPUs busier
#
# The ports differ from `make run`'s, so both can run side by side. Every
# process is started in its own session and process group; stack_stop (the
# EXIT trap installed by stack_init) stops them in reverse order, so a run
# leaves no process behind, whether it ends normally, fails or is interrupted.
#
# State and logs of the last run: bench/target/stack/ (logs/<process>.log).
#
# Env knobs: BENCH_HUB_HTTP_PORT, BENCH_HUB_GRPC_PORT, BENCH_TEMPORAL_PORT,
# BENCH_OPA_PORT, BENCH_DB, BENCH_HUB_JAVA_OPTS, BENCH_AGENT_JAVA_OPTS,
# BENCH_JAVA_OPTS (the measuring JVM), BENCH_HUB_TLS_DIR (a directory with hub.crt and hub.key:
# the hub's gateway speaks TLS), BENCH_HUB_TIMEOUT (seconds to wait for the hub, default 120),
# BENCH_MAVEN_REPO, BENCH_KUBE (real or testkube, see above)
# (local Maven repository to build the benchmark jar from, default ~/.m2's), and
# GITOPSHQ_PG_PORT (PostgreSQL, 5432) as for tools/dev/postgres.sh.

# shellcheck source-path=SCRIPTDIR source=../../tools/lib/common.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/lib/common.sh"
# shellcheck source=../../tools/lib/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../../tools/lib/procs.sh"

# --- configuration --------------------------------------------------------------
BENCH_DIR="${REPO_ROOT}/bench"
readonly HOST=127.0.0.1
readonly HUB_HTTP_PORT="${BENCH_HUB_HTTP_PORT:-18080}"
readonly HUB_GRPC_PORT="${BENCH_HUB_GRPC_PORT:-15051}"
readonly TEMPORAL_PORT="${BENCH_TEMPORAL_PORT:-17233}"
readonly OPA_PORT="${BENCH_OPA_PORT:-18181}"
readonly BENCH_DB_NAME="${BENCH_DB:-gitopshq_bench}"
readonly PG_PORT="${GITOPSHQ_PG_PORT:-5432}"
readonly HUB_URL="http://${HOST}:${HUB_HTTP_PORT}"
readonly OPA_URL="http://${HOST}:${OPA_PORT}"
readonly TEMPORAL_ADDRESS="${HOST}:${TEMPORAL_PORT}"

readonly STACK_DIR="${BENCH_DIR}/target/stack"
readonly KUBE_MODE="${BENCH_KUBE:-testkube}"
readonly KUBE_DIR="${STACK_DIR}/kube"
KUBE_STARTED=0 KUBE_START_PID='' REAL_KUBECONFIG=''
# Set by a run script before stack_start: extra arguments of `kube.sh start` (--with-flux), whether
# await_real_kube seeds the demo workloads, and extra VAR=value settings of the hub (start_hub).
KUBE_START_ARGS=() KUBE_SEED=1 HUB_EXTRA_ENV=()
readonly LOG_DIR="${STACK_DIR}/logs"
readonly RESULTS_DIR="${BENCH_DIR}/results"

readonly HUB_JAR="${REPO_ROOT}/api/target/gitopshq-hub.jar"
readonly AGENT_JAR="${REPO_ROOT}/agent/target/gitopshq-agent.jar"
readonly TESTKUBE_JAR="${REPO_ROOT}/testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar"
readonly BENCH_JAR="${BENCH_DIR}/target/gitopshq-bench.jar"

readonly HUB_TIMEOUT="${BENCH_HUB_TIMEOUT:-120}"
readonly START_TIMEOUT=60

# The cluster and member the command benchmark creates in its fresh database.
readonly BENCH_CLUSTER=bench
readonly AGENT_CAPABILITIES=observe,kubernetes.scale

# --- state ----------------------------------------------------------------------
JAVA='' OPA_BIN='' TEMPORAL_BIN=''
JVM_OPTS=()
OWNER_TOKEN=''             # the hub's bootstrap owner token, generated per run
API_STATUS='' API_BODY=''
CLUSTER_ID='' MEMBER_TOKEN=''
BENCH_PID=''               # the measuring JVM while it runs
STOPPING=0

stack_stop() {
  local rc=$? i name
  [ "$STOPPING" = 0 ] || return 0
  STOPPING=1
  trap '' INT TERM
  if [ -n "${BENCH_PID}" ] && kill -0 "${BENCH_PID}" 2>/dev/null; then
    kill -KILL "${BENCH_PID}" 2>/dev/null || true
    wait "${BENCH_PID}" 2>/dev/null || true
  fi
  if [ ${#PROC_PID[@]} -gt 0 ]; then
    log "stopping the benchmark stack"
    for ((i=${#PROC_NAMES[@]}-1; i>=0; i--)); do
      name=${PROC_NAMES[$i]}
      case "$name" in hub) stop_proc "$name" 30 ;; *) stop_proc "$name" 10 ;; esac
    done
    [ "${KUBE_STARTED}" = 0 ] || "${REPO_ROOT}/tools/dev/kube.sh" stop "${KUBE_DIR}" >/dev/null 2>&1 || true
    info "stopped; logs are in ${LOG_DIR#"${REPO_ROOT}"/}/"
  fi
  exit "$rc"
}

# --- options ------------------------------------------------------------------------
# check_options <script> <whole-number options> <file options> -- "$@": refuses an
# unknown option or a malformed value before anything is started (the measuring
# program checks them again); -h/--help prints the script's header comment.
check_options() {
  local script=$1 numbers=" $2 " files=" $3 " known name value
  known=$(for name in $2 $3; do printf ' --%s' "$name"; done)
  shift 4
  while [ $# -gt 0 ]; do
    case "$1" in
      -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "$script"; exit 0 ;;
      --*=*) name=${1%%=*} value=${1#*=}; shift ;;
      --*) name=$1; [ $# -ge 2 ] || die "option $1 needs a value"; value=$2; shift 2 ;;
      *) die "unexpected argument '$1' (see --help)" ;;
    esac
    name=${name#--}
    if [[ "$numbers" == *" ${name} "* ]]; then
      [[ "$value" =~ ^[0-9]+$ ]] || die "--${name} must be a whole number, got '${value}'"
    elif [[ "$files" == *" ${name} "* ]]; then
      [ -r "$value" ] || die "--${name}: cannot read ${value}"
    else
      die "unknown option --${name} (options:${known})"
    fi
  done
}

# --- prerequisites ----------------------------------------------------------------
# Checks tools, jars and ports, builds the benchmark jar when needed, prepares
# the run directory and installs the EXIT trap. Fails before starting anything.
stack_init() {
  local missing=0 cmd
  for cmd in curl jq setsid; do
    command -v "$cmd" >/dev/null 2>&1 || { echo "error: ${cmd} is missing; install it with: apt-get install -y ${cmd/setsid/util-linux}" >&2; missing=1; }
  done
  [ "$missing" = 0 ] || exit 1
  java_setup

  local jar
  for jar in "${HUB_JAR}" "${AGENT_JAR}" "${TESTKUBE_JAR}"; do
    [ -f "$jar" ] || die "${jar#"${REPO_ROOT}"/} is missing; build the Java artifacts first: make build"
  done
  OPA_BIN=$("${TOOLS_DIR}/bin-path.sh" opa 2>/dev/null) ||
    die "the opa binary is not built; run: make tools"
  TEMPORAL_BIN=$("${TOOLS_DIR}/bin-path.sh" temporal 2>/dev/null) ||
    die "the temporal binary is not built; run: make tools"
  "${TOOLS_DIR}/bin-path.sh" render-worker >/dev/null 2>&1 ||
    die "the render worker is not built; run: make tools"

  stack_check_ports
  build_bench_jar
  check_machine_idle
  rm -rf "${STACK_DIR}"
  mkdir -p "${LOG_DIR}" "${RESULTS_DIR}"
  chmod 700 "${STACK_DIR}"   # holds the agent's identity file
  OWNER_TOKEN="bench-owner-$(head -c 24 /dev/urandom | od -An -tx1 | tr -d ' \n')"

  trap stack_stop EXIT
  trap 'echo; exit 130' INT
  trap 'exit 143' TERM
}

# stack_check_ports: refuses to start when a port of the stack is taken.
stack_check_ports() {
  require_free_ports "another benchmark run?" \
    "${HUB_HTTP_PORT}:hub HTTP, BENCH_HUB_HTTP_PORT" "${HUB_GRPC_PORT}:hub gRPC, BENCH_HUB_GRPC_PORT" \
    "${TEMPORAL_PORT}:Temporal, BENCH_TEMPORAL_PORT" "${OPA_PORT}:OPA, BENCH_OPA_PORT"
}

# The benchmark jar, built when missing or older than its sources or than the
# gitopshq-activities jar it bundles. Needs the project's own modules in the
# local Maven repository (make build installs them); BENCH_MAVEN_REPO names
# another local repository (Maven's -Dmaven.repo.local), e.g. a private one the
# modules were installed into without touching ~/.m2 (see README.md).
build_bench_jar() {
  local repo=${BENCH_MAVEN_REPO:-${HOME:-/root}/.m2/repository}
  local -a mvn_opts=()
  [ -z "${BENCH_MAVEN_REPO:-}" ] || mvn_opts=("-Dmaven.repo.local=${BENCH_MAVEN_REPO}")
  if [ -f "${BENCH_JAR}" ] &&
     [ -z "$(find "${BENCH_DIR}/pom.xml" "${BENCH_DIR}/src" "${repo}/dev/gitopshq/gitopshq-activities" \
               -newer "${BENCH_JAR}" -type f -print -quit 2>/dev/null)" ]; then
    return 0
  fi
  log "building the benchmark jar (tools/mvn.sh -q -f bench/pom.xml package${mvn_opts[*]:+ ${mvn_opts[*]}})"
  "${TOOLS_DIR}/mvn.sh" -q -f bench/pom.xml "${mvn_opts[@]}" package ||
    die "building bench/ failed; it depends on gitopshq-activities in the local Maven repository (${repo}): run 'make build' first"
}

# Percentage of CPU time (all cores) the machine spent busy over 2 s, from
# /proc/stat. Measured before anything is started: what others are using.
cpu_busy_percent() {
  local a b
  a=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
  sleep 2
  b=$(awk '/^cpu / { print $2+$3+$4+$7+$8+$9, $2+$3+$4+$5+$6+$7+$8+$9 }' /proc/stat)
  awk -v a="$a" -v b="$b" 'BEGIN { split(a, x, " "); split(b, y, " ");
    t = y[2] - x[2]; printf "%d", (t > 0 ? 100 * (y[1] - x[1]) / t : 0) }'
}

# Latencies on a busy machine say more about the neighbours than about
# GitOpsHQ: say so up front (and record it in the JSON report).
check_machine_idle() {
  local busy
  busy=$(cpu_busy_percent)
  export BENCH_CPU_BUSY_BEFORE="${busy}"
  if [ "$busy" -ge 20 ]; then
    warn "the machine is busy before the benchmark starts (${busy}% of all CPU over 2 s); results will be noisy. Top processes:"
    ps -eo pid,pcpu,args --sort=-pcpu | head -n 6 | cut -c1-150 >&2
  else
    info "machine CPU busy before start: ${busy}%"
  fi
}

# "abc1234" or "abc1234+dirty": the revision measured. Read-only (no index lock).
git_revision() {
  local rev
  rev=$(git -C "${REPO_ROOT}" rev-parse --short HEAD 2>/dev/null) || { echo unknown; return; }
  if [ -n "$(git -C "${REPO_ROOT}" --no-optional-locks status --porcelain --untracked-files=no 2>/dev/null)" ]; then
    rev="${rev}+dirty"
  fi
  echo "$rev"
}

# --- the stack ------------------------------------------------------------------------
# True when anything listens on the port (any address); without ss, when
# 127.0.0.1:<port> accepts a connection.
temporal_serving() {
  port_accepts "${TEMPORAL_PORT}" &&
    "${TEMPORAL_BIN}" operator cluster health --address "${TEMPORAL_ADDRESS}" \
      --command-timeout 3s 2>/dev/null | grep -q SERVING
}
testkube_ready() { grep -q '^testkube ready ' "${LOG_DIR}/testkube.log"; }
policy_loaded() {
  api POST /api/v2/policies/approval/evaluate '{"input":{"command":{"type":"sync"}}}'
  [ "${API_STATUS}" = 200 ]
}

# A fresh database: nothing from an earlier run (commands, audit chain, owner).
fresh_database() {
  log "PostgreSQL: fresh database ${BENCH_DB_NAME}"
  "${TOOLS_DIR}/dev/postgres.sh" "${BENCH_DB_NAME}" >/dev/null
  if [ "$(id -un)" = postgres ]; then
    psql -p "${PG_PORT}" -v ON_ERROR_STOP=1 -qAt -c "drop database if exists ${BENCH_DB_NAME} with (force)"
  else
    runuser -u postgres -- psql -p "${PG_PORT}" -v ON_ERROR_STOP=1 -qAt -c "drop database if exists ${BENCH_DB_NAME} with (force)"
  fi
  "${TOOLS_DIR}/dev/postgres.sh" "${BENCH_DB_NAME}" >/dev/null
}

# start_temporal: the Temporal dev server with the repository's options
# (tools/dev/temporal-dev-options, as `make run` has them; BENCH_TEMPORAL_DEFAULTS=0 leaves them
# out) and BENCH_TEMPORAL_ARGS (split on spaces) appended, e.g.
# "--dynamic-config-value history.transferProcessorMaxPollRPS=20". Later values of a key win.
# wait_for_temporal returns once it reports SERVING.
start_temporal() {
  local -a dev_opts=()
  [ "${BENCH_TEMPORAL_DEFAULTS:-1}" = 0 ] || mapfile -t dev_opts < <(temporal_dev_options)
  # shellcheck disable=SC2206  # options are split on spaces on purpose
  local -a temporal_opts=(${BENCH_TEMPORAL_ARGS:-})
  start_proc temporal "${TEMPORAL_BIN}" server start-dev --headless \
    --db-filename "${STACK_DIR}/temporal.db" --ip "${HOST}" --port "${TEMPORAL_PORT}" --log-level warn \
    "${dev_opts[@]}" "${temporal_opts[@]}"
}
wait_for_temporal() {
  wait_for "Temporal did not report SERVING" "${START_TIMEOUT}" temporal temporal_serving
}

# stack_start with-kube|without-kube: PostgreSQL, Temporal, OPA and the hub,
# and testkube when asked (started early, it boots while the hub does).
# Returns when the hub is healthy and has loaded the approval policy into OPA.
stack_start() {
  local with_kube=''
  case "$1" in
    with-kube) with_kube=1 ;;
    without-kube) ;;
    *) die "stack_start: with-kube or without-kube, not '$1'" ;;
  esac
  fresh_database
  log "starting Temporal (${TEMPORAL_ADDRESS}), OPA (${OPA_URL})${with_kube:+, ${KUBE_MODE/real/the Kubernetes control plane}} and the hub (${HUB_URL}, gRPC :${HUB_GRPC_PORT})"
  start_temporal
  # --skip-version-check: OPA would otherwise ask GitHub for the latest release.
  opa_lockdown "${STACK_DIR}"
  # --h2c: the hub speaks cleartext HTTP/2 to OPA, every call a stream on one connection.
  start_proc opa "${OPA_BIN}" run --server --h2c --addr "${HOST}:${OPA_PORT}" --log-level error --skip-version-check \
    "${OPA_AUTH_ARGS[@]}"
  if [ -n "$with_kube" ]; then
    case "${KUBE_MODE}" in
      testkube) start_proc testkube "${JAVA}" "${JVM_OPTS[@]}" -Xmx256m -jar "${TESTKUBE_JAR}" --kubeconfig "${STACK_DIR}/kubeconfig" ;;
      real) start_real_kube ;;
      *) die "BENCH_KUBE must be real or testkube, not '${KUBE_MODE}'" ;;
    esac
  fi
  wait_for_temporal
  wait_for "OPA did not answer ${OPA_URL}/health" "${START_TIMEOUT}" opa http_ok "${OPA_URL}/health"
  start_hub
  info "stack is up after ${SECONDS} s"
}

# start_real_kube: a real control plane (tools/dev/kube.sh) starting in the
# background while the hub boots; await_real_kube waits for it, seeds the demo
# workloads (the benchmark scales demo/web) and sets REAL_KUBECONFIG.
start_real_kube() {
  KUBE_STARTED=1
  "${REPO_ROOT}/tools/dev/kube.sh" start "${KUBE_DIR}" "${KUBE_START_ARGS[@]}" >"${LOG_DIR}/kube.log" 2>&1 &
  KUBE_START_PID=$!
}

await_real_kube() {
  wait "${KUBE_START_PID}" ||
    die "the Kubernetes control plane did not start; see ${LOG_DIR}/kube.log and ${KUBE_DIR}/logs/"
  [ "${KUBE_SEED}" = 0 ] || "${REPO_ROOT}/tools/dev/kube.sh" seed "${KUBE_DIR}" >>"${LOG_DIR}/kube.log" 2>&1 ||
    die "seeding the demo workloads failed; see ${LOG_DIR}/kube.log"
  REAL_KUBECONFIG=$(sed -n 's/^kube ready .* kubeconfig=//p' "${LOG_DIR}/kube.log" | head -n 1)
  [ -n "${REAL_KUBECONFIG}" ] || die "tools/dev/kube.sh printed no kubeconfig; see ${LOG_DIR}/kube.log"
}

# start_hub: the hub (again, after it was killed: same database and data directory), with
# -Xmx768m unless BENCH_HUB_JAVA_OPTS says otherwise, TLS when BENCH_HUB_TLS_DIR is set, and the
# run script's HUB_EXTRA_ENV (VAR=value words; they win over the settings above).
# Returns when it is healthy and has loaded the approval policy into OPA.
start_hub() {
  local -a hub_opts=() hub_tls=() render_env
  mapfile -t render_env < <(hub_render_env)
  # shellcheck disable=SC2206  # options are split on spaces on purpose
  [ -z "${BENCH_HUB_JAVA_OPTS:-}" ] || hub_opts=(${BENCH_HUB_JAVA_OPTS})
  [ -z "${BENCH_HUB_TLS_DIR:-}" ] ||
    hub_tls=(AGENT_GRPC_TLS_CERT="${BENCH_HUB_TLS_DIR}/hub.crt" AGENT_GRPC_TLS_KEY="${BENCH_HUB_TLS_DIR}/hub.key")
  start_proc hub env \
    GITOPSHQ_DB_URL="jdbc:postgresql://${HOST}:${PG_PORT}/${BENCH_DB_NAME}" \
    GITOPSHQ_DB_USER=gitopshq GITOPSHQ_DB_PASSWORD=gitopshq \
    TEMPORAL_ADDRESS="${TEMPORAL_ADDRESS}" \
    OPA_URL="${OPA_URL}" GITOPSHQ_OPA_TOKEN="${OPA_TOKEN}" \
    SERVER_ADDRESS="${HOST}" \
    GITOPSHQ_HTTP_PORT="${HUB_HTTP_PORT}" \
    AGENT_GRPC_PORT="${HUB_GRPC_PORT}" \
    AGENT_GRPC_PUBLIC_ADDRESS="${HOST}:${HUB_GRPC_PORT}" \
    GITOPSHQ_DATA_DIR="${STACK_DIR}/hub-data" \
    GITOPSHQ_BOOTSTRAP_TOKEN="${OWNER_TOKEN}" \
    "${hub_tls[@]}" "${render_env[@]}" "${HUB_EXTRA_ENV[@]}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx768m "${hub_opts[@]}" -jar "${HUB_JAR}"
  wait_for "the hub did not become healthy (${HUB_URL}/actuator/health)" "${HUB_TIMEOUT}" hub \
    http_ok "${HUB_URL}/actuator/health"
  wait_for "the hub did not load the approval policy into OPA" 30 hub policy_loaded
}

# api <METHOD> <path> [json body] [token]: sets API_STATUS and API_BODY.
api() {
  local method=$1 path=$2 body=${3:-} token=${4:-${OWNER_TOKEN}} out
  local -a args=(-sS -m 15 -X "$method" -H "Authorization: Bearer ${token}" -H 'Accept: application/json')
  [ -z "$body" ] || args+=(-H 'Content-Type: application/json' --data "$body")
  out=$(curl "${args[@]}" -w $'\n%{http_code}' "${HUB_URL}${path}" 2>&1) || { API_STATUS=000 API_BODY=$out; return 0; }
  API_STATUS=${out##*$'\n'}
  API_BODY=${out%$'\n'*}
}

api_expect() {
  [ "${API_STATUS}" = "$1" ] || die "$2: expected HTTP $1, got ${API_STATUS}: ${API_BODY:0:500}"
}

cluster_connected() {
  api GET "/api/v2/clusters/${CLUSTER_ID}"
  [ "${API_STATUS}" = 200 ] && [ "$(jq -r '.status // empty' <<<"${API_BODY}")" = Connected ]
}

# Registers cluster "bench", binds an approval policy that auto-approves scale,
# creates a member (role member) with an API token (MEMBER_TOKEN), starts the
# agent against testkube and waits until the cluster is Connected.
stack_start_agent() {
  local reg_token kubeconfig member_id
  local -a agent_opts=()
  log "cluster '${BENCH_CLUSTER}', approval policy (scale auto-approved), member token, agent"
  api POST /api/v2/clusters "{\"name\":\"${BENCH_CLUSTER}\",\"environment\":\"dev\"}"
  api_expect 201 "registering cluster ${BENCH_CLUSTER}"
  CLUSTER_ID=$(jq -r '.cluster.id' <<<"${API_BODY}")
  reg_token=$(jq -r '.registrationToken' <<<"${API_BODY}")
  api PUT "/api/v2/clusters/${CLUSTER_ID}/approval-policy" '{"autoApprove":["scale"],"requireApproval":[],"requiredApprovers":1}'
  api_expect 200 "binding the approval policy"
  api POST /api/v2/members '{"email":"bench@example.com","name":"bench","role":"member"}'
  api_expect 201 "creating the member"
  member_id=$(jq -r '.id' <<<"${API_BODY}")
  api POST "/api/v2/members/${member_id}/tokens" '{"name":"bench"}'
  api_expect 201 "creating the member's token"
  MEMBER_TOKEN=$(jq -r '.token' <<<"${API_BODY}")

  if [ "${KUBE_MODE}" = real ]; then
    await_real_kube
    kubeconfig=${REAL_KUBECONFIG}
  else
    wait_for "testkube did not print 'testkube ready'" "${START_TIMEOUT}" testkube testkube_ready
    kubeconfig=$(sed -n 's/^testkube ready .* kubeconfig=//p' "${LOG_DIR}/testkube.log" | head -n 1)
  fi
  # shellcheck disable=SC2206
  [ -z "${BENCH_AGENT_JAVA_OPTS:-}" ] || agent_opts=(${BENCH_AGENT_JAVA_OPTS})
  start_proc agent env \
    GITOPSHQ_HUB_ADDRESS="${HOST}:${HUB_GRPC_PORT}" \
    GITOPSHQ_HUB_PLAINTEXT=true \
    GITOPSHQ_IDENTITY_STORE_MODE=file \
    GITOPSHQ_AGENT_TOKEN_PATH="${STACK_DIR}/agent-identity.json" \
    GITOPSHQ_REGISTRATION_TOKEN="${reg_token}" \
    GITOPSHQ_CLUSTER_NAME="${BENCH_CLUSTER}" \
    GITOPSHQ_CAPABILITIES="${AGENT_CAPABILITIES}" \
    GITOPSHQ_STATUS_INTERVAL_SECONDS=5 \
    KUBECONFIG="${kubeconfig:-${STACK_DIR}/kubeconfig}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx128m "${agent_opts[@]}" -jar "${AGENT_JAR}"
  wait_for "cluster ${BENCH_CLUSTER} did not become Connected" "${START_TIMEOUT}" agent cluster_connected
  info "cluster ${BENCH_CLUSTER} (${CLUSTER_ID}) is Connected after ${SECONDS} s"
}

# run_bench <main class> <args...>: runs the benchmark JVM (output to the
# terminal) with the member's (or else the owner's) token in its environment,
# and what is measured: the checkout's revision and when the hub and agent jars
# were built (they may be older than the checkout).
#
# The JVM runs in the background and the script waits for it: bash runs a
# signal trap only after a foreground command has finished, whereas `wait`
# returns at once, so TERM or Ctrl-C stops the run (stack_stop ends the JVM
# too) right away instead of after the measurement.
run_bench() {
  local rc=0
  run_bench_start "$@"
  wait "${BENCH_PID}" || rc=$?
  BENCH_PID=''
  return "$rc"
}

# run_bench_start <main class> <args...>: run_bench without the wait (BENCH_PID is the JVM), for
# scripts that act on the stack while the measurement runs (bench/run-fleet.sh --storm).
run_bench_start() {
  local main=$1; shift
  # shellcheck disable=SC2206  # options are split on spaces on purpose
  local -a bench_opts=(-Xmx1g ${BENCH_JAVA_OPTS:-})
  BENCH_HUB_TOKEN="${MEMBER_TOKEN:-${OWNER_TOKEN}}" GITOPSHQ_OPA_TOKEN="${OPA_TOKEN:-}" \
  BENCH_GIT_REVISION="$(git_revision)" \
  BENCH_JARS_BUILT="hub $(date -u -r "${HUB_JAR}" +%FT%TZ), agent $(date -u -r "${AGENT_JAR}" +%FT%TZ)" \
    "${JAVA}" "${JVM_OPTS[@]}" "${bench_opts[@]}" -cp "${BENCH_JAR}" "$main" "$@" </dev/null &
  BENCH_PID=$!
}
