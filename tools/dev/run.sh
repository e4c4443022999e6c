#!/usr/bin/env bash
# Runs the whole GitOpsHQ dev stack in the foreground (`make run`):
#
#   PostgreSQL 15 (system service)  127.0.0.1:5432
#   Temporal dev server             127.0.0.1:7233, Web UI http://127.0.0.1:8233
#   OPA                             http://127.0.0.1:8181
#   demo Kubernetes cluster         a real control plane (tools/dev/kube.sh: etcd, kube-apiserver,
#                                   controller-manager, scheduler, kwok) on free loopback ports,
#                                   seeded with demo workloads and namespaces;
#                                   kubeconfig .gitopshq/kube/admin.kubeconfig
#   dev OIDC provider (idp/)        http://127.0.0.1:9000, SSO for the hub (demo users printed at the end)
#   hub                             http://127.0.0.1:8080 (REST), gRPC with TLS 127.0.0.1:50051
#   demo agents                     clusters "demo" (every capability; project demo, Flux) and
#                                   "demo-direct" (direct.deploy, credential.sync; project shop,
#                                   delivery mode direct), both on the demo control plane, each
#                                   with a ServiceAccount token bound to the RBAC the agent chart
#                                   renders for it (tools/lib/demo.sh, tools/dev/agent-identity.sh)
#   Flux                            source-controller and kustomize-controller beside the demo
#                                   cluster (kube.sh flux-start), started last: their first
#                                   build (tools/build-tools.sh flux) takes ~10 minutes
#
# `tools/dev/run.sh --ha [--replicas N]` (make run-ha) runs the HA profile instead
# (tools/dev/run-ha.sh: the Temporal server on PostgreSQL, hub replicas behind HAProxy).
#
# Ctrl-C stops everything this script started (PostgreSQL is a system service
# and keeps running). All state and logs live under .gitopshq/ (gitignored):
#   .gitopshq/data/           temporal.db, the hub's data dir, bootstrap-token
#   .gitopshq/logs/<proc>.log one log per process (the previous run's as .1)
#   .gitopshq/kube/           the demo cluster's PKI, etcd data, logs and admin kubeconfig
#   .gitopshq/demo-agent/, .gitopshq/demo-direct-agent/
#                             each agent's identity file, its kubeconfig (the chart's
#                             ServiceAccount) and agent.env (the chart's settings it runs with)
#
# Env knobs:
#   KUBECONFIG                 use this cluster for the demo agent instead of the demo cluster
#                              (with that kubeconfig as it is; no demo-direct)
#   GITOPSHQ_DEMO_KUBE=mock    the Fabric8 mock (testkube) instead of the real control plane,
#                              for a machine that cannot build or run kube-apiserver (no demo-direct)
#   GITOPSHQ_DEMO_RELEASE_TIMEOUT  seconds to wait for the seeded release of shop (240)
#   GITOPSHQ_DEMO_FLUX=off     no Flux controllers beside the demo cluster
#   GITOPSHQ_DEV_DB            PostgreSQL database of the hub (gitopshq)
#   GITOPSHQ_BOOTSTRAP_TOKEN   owner API token for the hub to use (>= 32 chars)
#   GITOPSHQ_HUB_TIMEOUT       seconds to wait for the hub to be healthy (120)
#   GITOPSHQ_CONNECT_TIMEOUT   seconds to wait for the demo cluster to be Connected (120)
#   GITOPSHQ_HUB_JAVA_OPTS, GITOPSHQ_AGENT_JAVA_OPTS   extra JVM options (after the defaults
#                              -Xmx768m for the hub and -Xmx128m for the agent, so they win)
#   GITOPSHQ_STATE_DIR         where state and logs live (.gitopshq)
#   GITOPSHQ_SKIP_JAVA_BUILD=1 run the jars as they are (the UI's end-to-end tests,
#                              right after `mvn verify` built them)
#   GITOPSHQ_HUB_PORT, GITOPSHQ_GRPC_PORT, GITOPSHQ_TEMPORAL_PORT,
#   GITOPSHQ_TEMPORAL_UI_PORT, GITOPSHQ_OPA_PORT   the ports above (the UI's
#                              end-to-end tests run a second stack on free ports)
#   GITOPSHQ_DEV_IDP_PORT      port of the development OIDC provider (9000)
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
# shellcheck source=../lib/procs.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/procs.sh"
# shellcheck source=../lib/tls.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/tls.sh"
# shellcheck source=../lib/demo.sh
. "$(dirname "${BASH_SOURCE[0]}")/../lib/demo.sh"

# --- configuration ------------------------------------------------------------
readonly HOST=127.0.0.1
readonly HUB_HTTP_PORT=${GITOPSHQ_HUB_PORT:-8080} HUB_GRPC_PORT=${GITOPSHQ_GRPC_PORT:-50051}
readonly TEMPORAL_PORT=${GITOPSHQ_TEMPORAL_PORT:-7233} TEMPORAL_UI_PORT=${GITOPSHQ_TEMPORAL_UI_PORT:-8233}
readonly OPA_PORT=${GITOPSHQ_OPA_PORT:-8181}
readonly HUB_URL="http://${HOST}:${HUB_HTTP_PORT}"
readonly OPA_URL="http://${HOST}:${OPA_PORT}"
readonly IDP_PORT="${GITOPSHQ_DEV_IDP_PORT:-9000}"
readonly IDP_URL="http://${HOST}:${IDP_PORT}"

readonly DEV_DB="${GITOPSHQ_DEV_DB:-gitopshq}"
readonly DATA_DIR="${STATE_DIR}/data"
readonly LOG_DIR="${STATE_DIR}/logs"
readonly DEMO_KUBECONFIG="${STATE_DIR}/demo-kubeconfig"
readonly KUBE_DIR="${STATE_DIR}/kube"
readonly DEMO_KUBE="${GITOPSHQ_DEMO_KUBE:-real}"
readonly DEMO_FLUX="${GITOPSHQ_DEMO_FLUX:-on}"
readonly FLUX_CONTROLLERS=(source-controller kustomize-controller)
readonly TLS_DIR="${STATE_DIR}/tls"
readonly TOKEN_FILE="${DATA_DIR}/bootstrap-token"

# The jars as the build leaves them; stage_jars runs copies (see there).
HUB_JAR="${REPO_ROOT}/api/target/gitopshq-hub.jar"
AGENT_JAR="${REPO_ROOT}/agent/target/gitopshq-agent.jar"
TESTKUBE_JAR="${REPO_ROOT}/testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar"
IDP_JAR="${REPO_ROOT}/idp/target/gitopshq-dev-idp.jar"
# The demo users' password, made once per state directory (mode 0600).
readonly IDP_PASSWORD_FILE="${DATA_DIR}/idp-demo-password"

readonly HUB_TIMEOUT="${GITOPSHQ_HUB_TIMEOUT:-120}"
readonly CONNECT_TIMEOUT="${GITOPSHQ_CONNECT_TIMEOUT:-120}"
readonly TEMPORAL_TIMEOUT=60 OPA_TIMEOUT=30 TESTKUBE_TIMEOUT=60 IDP_TIMEOUT=90 KUBE_TIMEOUT=120

readonly DEMO_CLUSTER_JSON='{"name":"demo","displayName":"Demo cluster","provider":"on-prem","region":"local","environment":"dev","labels":{"tier":"dev"}}'
readonly DIRECT_CLUSTER_JSON='{"name":"demo-direct","displayName":"Direct delivery (demo)","provider":"on-prem","region":"local","environment":"dev","labels":{"tier":"dev","delivery":"direct"}}'
# The agent exits with this code when the hub rejects its identity (for
# example after the database was reset): we then register it once more.
readonly AGENT_EXIT_IDENTITY_REJECTED=3   # agent/.../config/ExitCodes.IDENTITY_REJECTED

# --- state --------------------------------------------------------------------
STOPPING=0
JAVA=''
JVM_OPTS=()              # options for every JVM we start (see check_prerequisites)
OPA_BIN='' TEMPORAL_BIN=''
KUBE_URL='' AGENT_KUBECONFIG=''
FLUX_STATE=''            # what print_summary says about Flux
API_TOKEN=''
DEMO_PROJECT_ID='' DEMO_CLONE_URL='' SHOP_PROJECT_ID=''
API_STATUS='' API_BODY=''

# --- helpers ------------------------------------------------------------------
elapsed() { echo "${SECONDS}s"; }

check_prerequisites() {
  local missing=0
  command -v curl >/dev/null 2>&1   || { echo "error: curl is missing; install it with: apt-get install -y curl" >&2; missing=1; }
  command -v jq >/dev/null 2>&1     || { echo "error: jq is missing (used to read the hub's JSON answers); install it with: apt-get install -y jq" >&2; missing=1; }
  command -v setsid >/dev/null 2>&1 || { echo "error: setsid is missing; install it with: apt-get install -y util-linux" >&2; missing=1; }
  [ "$missing" = 0 ] || exit 1
  java_setup
}

# A previous `make run` that is still alive (or anything else on our ports)
# would make the new processes fail in confusing ways: refuse early.
check_ports() {
  require_free_ports "is a previous 'make run' still running?" \
    "${TEMPORAL_PORT}:Temporal" "${TEMPORAL_UI_PORT}:Temporal Web UI" "${OPA_PORT}:OPA" \
    "${HUB_HTTP_PORT}:hub HTTP" "${HUB_GRPC_PORT}:hub gRPC" "${IDP_PORT}:dev OIDC provider"
}

cleanup() {
  local rc=$? i name grace
  [ "$STOPPING" = 0 ] || return 0
  STOPPING=1
  # A second Ctrl-C while stopping skips the grace periods.
  trap 'FORCE_STOP=1' INT TERM
  if [ ${#PROC_PID[@]} -gt 0 ]; then
    log "stopping: $(for ((i=${#PROC_NAMES[@]}-1; i>=0; i--)); do [ -n "${PROC_PID[${PROC_NAMES[$i]}]:-}" ] && printf '%s ' "${PROC_NAMES[$i]}"; done)"
    for ((i=${#PROC_NAMES[@]}-1; i>=0; i--)); do
      name=${PROC_NAMES[$i]}
      case "$name" in hub) grace=30 ;; temporal) grace=15 ;; *) grace=10 ;; esac
      stop_proc "$name" "$grace"
    done
    log "stopped (PostgreSQL keeps running; logs are in ${LOG_DIR#"${REPO_ROOT}"/}/)"
  fi
  if [ "${KUBE_STARTED:-0}" = 1 ]; then
    "${TOOLS_DIR}/dev/kube.sh" stop "${KUBE_DIR}" >/dev/null 2>&1 || true
    log "stopped the demo cluster (its state stays in ${KUBE_DIR#"${REPO_ROOT}"/}/)"
  fi
  exit "$rc"
}

# --- steps ----------------------------------------------------------------------
prepare_dirs() {
  mkdir -p "${DATA_DIR}" "${LOG_DIR}"
  define_agent agent demo "${DEMO_CLUSTER_JSON}" "${STATE_DIR}/demo-agent" "${DEMO_AGENT_HELM}"
  # The hub prints its first token to stdout, which lands in hub.log, and the
  # agent's identity holds its token: keep .gitopshq/ private to the user.
  # (Not via umask, which would leak into the Maven and Go builds.)
  chmod 700 "${STATE_DIR}"
}

# The hub's agent gateway certificate (tools/lib/tls.sh), made once.
make_tls() { make_local_tls "${TLS_DIR}" "${HOST}"; }

start_postgres() {
  log "PostgreSQL"
  "${TOOLS_DIR}/dev/postgres.sh" "${DEV_DB}"
}

build_tools() {
  log "tools (opa, temporal)"
  "${TOOLS_DIR}/build-tools.sh" all
  OPA_BIN=$("${TOOLS_DIR}/bin-path.sh" opa)
  TEMPORAL_BIN=$("${TOOLS_DIR}/bin-path.sh" temporal)
  # helm renders the agent chart's RBAC for the demo agents (built once, then cached).
  if [ -z "${KUBECONFIG:-}" ] && [ "${DEMO_KUBE}" = real ]; then
    "${TOOLS_DIR}/build-tools.sh" helm
  fi
}

build_java() {
  if [ "${GITOPSHQ_SKIP_JAVA_BUILD:-0}" = 1 ]; then
    info "Java build skipped (GITOPSHQ_SKIP_JAVA_BUILD=1): using the jars in */target as they are"
    return 0
  fi
  "${TOOLS_DIR}/dev/build-java.sh" --if-changed
}

# The stack runs copies of the jars in the state directory: a build or `make test` beside a
# running stack rewrites */target, and a JVM whose jar changes under it fails to load classes
# (the hub's Temporal worker did, 52 times, until a restart).
stage_jars() {
  local dir="${STATE_DIR}/jars" jar
  mkdir -p "${dir}"
  for jar in HUB_JAR AGENT_JAR TESTKUBE_JAR IDP_JAR; do
    [ -f "${!jar}" ] || continue
    cp -f "${!jar}" "${dir}/$(basename "${!jar}").tmp"
    mv -f "${dir}/$(basename "${!jar}").tmp" "${dir}/$(basename "${!jar}")"
    printf -v "${jar}" '%s' "${dir}/$(basename "${!jar}")"
  done
}

temporal_serving() {
  port_accepts "${TEMPORAL_PORT}" &&
    "${TEMPORAL_BIN}" operator cluster health --address "${HOST}:${TEMPORAL_PORT}" \
      --command-timeout 3s 2>/dev/null | grep -q SERVING
}

# Temporal, OPA and testkube do not depend on each other, so they are
# launched together and awaited afterwards; the hub (which needs Temporal)
# starts while testkube's JVM is still booting. Each launch_* only starts the
# process, each await_* waits for it to be ready.
launch_temporal() {
  local -a dev_opts
  mapfile -t dev_opts < <(temporal_dev_options)
  log "starting Temporal dev server"
  start_proc temporal "${TEMPORAL_BIN}" server start-dev \
    --db-filename "${DATA_DIR}/temporal.db" \
    --port "${TEMPORAL_PORT}" --ui-port "${TEMPORAL_UI_PORT}" --ip "${HOST}" \
    --log-level warn "${dev_opts[@]}"
}

await_temporal() {
  wait_for "Temporal did not report SERVING on ${HOST}:${TEMPORAL_PORT}" "${TEMPORAL_TIMEOUT}" temporal temporal_serving
  info "Temporal is serving ($(elapsed))"
}

launch_opa() {
  log "starting OPA"
  # --skip-version-check: OPA would otherwise ask GitHub for the latest release.
  # Locked to the hub: only the token in .gitopshq/data/opa-token may use OPA's API.
  opa_lockdown "${DATA_DIR}"
  # --h2c: the hub speaks cleartext HTTP/2 to OPA, every call a stream on one connection.
  start_proc opa "${OPA_BIN}" run --server --h2c --addr "${HOST}:${OPA_PORT}" --log-level error --skip-version-check \
    "${OPA_AUTH_ARGS[@]}"
}

await_opa() {
  wait_for "OPA did not answer ${OPA_URL}/health" "${OPA_TIMEOUT}" opa http_ok "${OPA_URL}/health"
  info "OPA is up ($(elapsed))"
}

testkube_ready() { grep -q '^testkube ready ' "${PROC_LOG[testkube]}"; }

kube_ready() { grep -q '^kube ready ' "${PROC_LOG[kube]}"; }

# The demo cluster: a real control plane unless KUBECONFIG names another cluster or
# GITOPSHQ_DEMO_KUBE=mock asks for the Fabric8 mock. kube.sh starts its processes in the
# background and prints "kube ready <url> kubeconfig=<path>" once the API server answers;
# cleanup stops them.
launch_testkube() {
  if [ -n "${KUBECONFIG:-}" ]; then
    log "demo cluster: skipped, KUBECONFIG is set (${KUBECONFIG}); the demo agent uses that cluster"
    AGENT_KUBECONFIG=${KUBECONFIG}
    foreign_agent_identity agent "${AGENT_KUBECONFIG}"
    return 0
  fi
  if [ "${DEMO_KUBE}" = real ]; then
    log "starting the demo cluster (kube-apiserver, controller-manager, scheduler, kwok)"
    KUBE_STARTED=1
    start_proc kube "${TOOLS_DIR}/dev/kube.sh" start "${KUBE_DIR}"
    return 0
  fi
  log "starting test Kubernetes API (testkube, GITOPSHQ_DEMO_KUBE=mock)"
  rm -f "${DEMO_KUBECONFIG}"
  start_proc testkube "${JAVA}" "${JVM_OPTS[@]}" -Xmx256m -jar "${TESTKUBE_JAR}" --kubeconfig "${DEMO_KUBECONFIG}"
}

await_testkube() {
  if [ -n "${PROC_PID[kube]:-}" ]; then
    wait_for "the demo cluster did not print 'kube ready' (see ${KUBE_DIR#"${REPO_ROOT}"/}/logs/)" \
      "${KUBE_TIMEOUT}" kube kube_ready
    KUBE_URL=$(awk '$1 == "kube" && $2 == "ready" { print $3; exit }' "${PROC_LOG[kube]}")
    AGENT_KUBECONFIG="${KUBE_DIR}/admin.kubeconfig"
    "${TOOLS_DIR}/dev/kube.sh" seed "${KUBE_DIR}" "${HUB_URL}" >>"${PROC_LOG[kube]}" 2>&1 ||
      die "seeding the demo cluster failed (see ${PROC_LOG[kube]})"
    # kube.sh has exited; from now on watch the API server it left running.
    PROC_PID[kube]=$(cat "${KUBE_DIR}/run/kube-apiserver.pid")
    info "demo cluster at ${KUBE_URL}, seeded ($(elapsed))"
    define_agent agent-direct demo-direct "${DIRECT_CLUSTER_JSON}" "${STATE_DIR}/demo-direct-agent" "${DIRECT_AGENT_HELM}"
    make_agent_identities
    return 0
  fi
  [ -n "${PROC_PID[testkube]:-}" ] || return 0
  wait_for "testkube did not print 'testkube ready'" "${TESTKUBE_TIMEOUT}" testkube testkube_ready
  # The interface: one line "testkube ready <url> kubeconfig=<path>" on stdout.
  KUBE_URL=$(awk '$1 == "testkube" && $2 == "ready" { print $3; exit }' "${PROC_LOG[testkube]}")
  AGENT_KUBECONFIG=$(sed -n 's/^testkube ready .* kubeconfig=//p' "${PROC_LOG[testkube]}" | head -n 1)
  [ -n "${AGENT_KUBECONFIG}" ] || AGENT_KUBECONFIG=${DEMO_KUBECONFIG}
  foreign_agent_identity agent "${AGENT_KUBECONFIG}"
  info "test Kubernetes API at ${KUBE_URL} ($(elapsed))"
}

# The development OpenID Connect provider (idp/, Spring Authorization Server):
# users demo (group platform-admins -> admin) and dev (group developers ->
# member), a PKCE client for the hub and a device-flow client for a CLI. The
# password goes through the environment, never the command line.
launch_idp() {
  log "starting the development OIDC provider"
  if [ ! -s "${IDP_PASSWORD_FILE}" ]; then
    # Not `tr </dev/urandom | head`: under pipefail, tr's SIGPIPE would end the script.
    (umask 077 && od -An -tx1 -N8 /dev/urandom | tr -d ' \n' >"${IDP_PASSWORD_FILE}")
  fi
  local password
  password=$(cat "${IDP_PASSWORD_FILE}")
  start_proc idp env \
    GITOPSHQ_DEV_IDP_PORT="${IDP_PORT}" GITOPSHQ_DEV_IDP_ISSUER="${IDP_URL}" \
    GITOPSHQ_DEV_IDP_DEMO_PASSWORD="${password}" GITOPSHQ_DEV_IDP_DEV_PASSWORD="${password}" \
    GITOPSHQ_DEV_IDP_REDIRECT_URIS="http://localhost:${HUB_HTTP_PORT}/api/v2/auth/oidc/callback,${HUB_URL}/api/v2/auth/oidc/callback" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx192m -jar "${IDP_JAR}" --server.address="${HOST}"
}

await_idp() {
  wait_for "the OIDC provider did not answer ${IDP_URL}/.well-known/openid-configuration" \
    "${IDP_TIMEOUT}" idp http_ok "${IDP_URL}/.well-known/openid-configuration"
  info "OIDC provider is up at ${IDP_URL} ($(elapsed))"
}

launch_hub() {
  log "starting hub"
  local -a java_opts=()
  # shellcheck disable=SC2206  # options are split on spaces on purpose
  [ -z "${GITOPSHQ_HUB_JAVA_OPTS:-}" ] || java_opts=(${GITOPSHQ_HUB_JAVA_OPTS})
  # Helm charts render in render-worker processes the hub starts (built by build-tools.sh all);
  # they get an empty environment and have no Kubernetes client, whatever the hub's is.
  local render_env
  mapfile -t render_env < <(hub_render_env)
  start_proc hub env \
    GITOPSHQ_DB_URL="jdbc:postgresql://${HOST}:5432/${DEV_DB}" \
    GITOPSHQ_DB_USER=gitopshq GITOPSHQ_DB_PASSWORD=gitopshq \
    TEMPORAL_ADDRESS="${HOST}:${TEMPORAL_PORT}" \
    OPA_URL="${OPA_URL}" GITOPSHQ_OPA_TOKEN="${OPA_TOKEN}" \
    GITOPSHQ_DATA_DIR="${DATA_DIR}" \
    GITOPSHQ_HTTP_PORT="${HUB_HTTP_PORT}" AGENT_GRPC_PORT="${HUB_GRPC_PORT}" \
    AGENT_GRPC_PUBLIC_ADDRESS="${HOST}:${HUB_GRPC_PORT}" \
    AGENT_GRPC_TLS_CERT="${TLS_DIR}/hub.crt" AGENT_GRPC_TLS_KEY="${TLS_DIR}/hub.key" \
    GITOPSHQ_OIDC_ISSUER="${IDP_URL}" GITOPSHQ_OIDC_CLIENT_ID=gitopshq-ui \
    GITOPSHQ_OIDC_REDIRECT_URI="${HUB_URL}/api/v2/auth/oidc/callback" \
    GITOPSHQ_OIDC_CLI_CLIENT_ID=gitopshq-cli \
    GITOPSHQ_OIDC_GROUPMAPPINGS_0_GROUP=platform-admins GITOPSHQ_OIDC_GROUPMAPPINGS_0_ROLE=admin \
    GITOPSHQ_OIDC_GROUPMAPPINGS_0_TEAMS=platform \
    GITOPSHQ_OIDC_GROUPMAPPINGS_1_GROUP=developers GITOPSHQ_OIDC_GROUPMAPPINGS_1_ROLE=member \
    GITOPSHQ_OIDC_GROUPMAPPINGS_1_TEAMS=web \
    "${render_env[@]}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx768m "${java_opts[@]}" -jar "${HUB_JAR}"
}

await_hub() {
  wait_for "hub did not become healthy (${HUB_URL}/actuator/health)" "${HUB_TIMEOUT}" hub \
    http_ok "${HUB_URL}/actuator/health"
  info "hub is healthy ($(elapsed))"
}

read_api_token() {
  if [ -n "${GITOPSHQ_BOOTSTRAP_TOKEN:-}" ]; then
    API_TOKEN=${GITOPSHQ_BOOTSTRAP_TOKEN}
    info "using GITOPSHQ_BOOTSTRAP_TOKEN from the environment"
    return 0
  fi
  # The hub writes the file during startup, before it reports healthy; the
  # short wait only covers slow file systems.
  local deadline=$(( SECONDS + 10 ))
  while [ ! -s "${TOKEN_FILE}" ] && [ "$SECONDS" -lt "$deadline" ]; do sleep 0.5; done
  if [ ! -s "${TOKEN_FILE}" ]; then
    die "the hub did not write ${TOKEN_FILE#"${REPO_ROOT}"/}: its database already has an owner from an earlier run whose token file is gone; set GITOPSHQ_BOOTSTRAP_TOKEN to that token, or start over with 'make reset'"
  fi
  API_TOKEN=$(tr -d '[:space:]' <"${TOKEN_FILE}")
}

# api <METHOD> <path> [json body]  -> sets API_STATUS and API_BODY.
api() {
  local method=$1 path=$2 body=${3:-} out
  local -a args=(-sS -m 15 -X "$method" -H "Authorization: Bearer ${API_TOKEN}" -H 'Accept: application/json')
  [ -z "$body" ] || args+=(-H 'Content-Type: application/json' --data "$body")
  out=$(curl "${args[@]}" -w $'\n%{http_code}' "${HUB_URL}${path}" 2>&1) || {
    API_STATUS=000 API_BODY=$out
    return 0
  }
  API_STATUS=${out##*$'\n'}
  API_BODY=${out%$'\n'*}
}

api_expect() {
  local want=$1 what=$2
  [ "${API_STATUS}" = "$want" ] && return 0
  case "${API_STATUS}" in
    401|403) die "${what}: the hub answered ${API_STATUS}; the API token is not accepted (GITOPSHQ_BOOTSTRAP_TOKEN or ${TOKEN_FILE#"${REPO_ROOT}"/} is from another database? 'make reset' starts over)" ;;
    *) die "${what}: expected HTTP ${want}, got ${API_STATUS}: ${API_BODY:0:500}" ;;
  esac
}

# api_ok <want...> -- <what>: like api_expect, but any of several statuses is fine.
api_ok() {
  local what=${*: -1} s
  for s in "${@:1:$#-1}"; do [ "${API_STATUS}" = "$s" ] && return 0; done
  api_expect "$1" "$what"
}

# Flux's controllers beside the demo cluster. Launched after everything else is up, since their
# first build takes ~10 minutes on 2 cores: the launcher (kube.sh flux-start) builds them when
# missing, with progress in its log, applies the CRDs, starts both and exits once they are ready;
# supervise then watches the controllers themselves (adopt_flux). A failed build or start is
# reported and leaves the rest of the stack running.
launch_flux() {
  local c built=1
  [ "${KUBE_STARTED:-0}" = 1 ] || return 0
  if [ "${DEMO_FLUX}" = off ]; then
    FLUX_STATE="not started (GITOPSHQ_DEMO_FLUX=off)"
    return 0
  fi
  for c in "${FLUX_CONTROLLERS[@]}"; do
    [ -x "$("${TOOLS_DIR}/bin-path.sh" --no-check "$c")" ] || built=0
  done
  if [ "$built" = 1 ]; then
    log "starting the Flux controllers"
    FLUX_STATE="starting"
  else
    log "building the Flux controllers in the background (first time only, ~10 minutes on 2 cores)"
    FLUX_STATE="building (first time only, ~10 minutes), then starting"
  fi
  start_proc flux "${TOOLS_DIR}/dev/kube.sh" flux-start "${KUBE_DIR}"
  FLUX_STATE+="; progress in ${PROC_LOG[flux]#"${REPO_ROOT}"/}"
}

# The launcher has exited: on success, watch the two controllers it left running as our own
# processes (cleanup stops them; so would kube.sh stop).
adopt_flux() {
  local c
  if [ "${PROC_RC}" != 0 ]; then
    warn "the Flux controllers did not start (code ${PROC_RC}); the rest of the stack keeps running"
    show_log_tail flux 15
    return 0
  fi
  for c in "${FLUX_CONTROLLERS[@]}"; do
    PROC_NAMES+=("$c")
    PROC_PID[$c]=$(cat "${KUBE_DIR}/run/$c.pid")
    PROC_LOG[$c]="${KUBE_DIR}/logs/$c.log"
  done
  log "Flux controllers ready after ${SECONDS} s (namespace flux-system; logs in ${KUBE_DIR#"${REPO_ROOT}"/}/logs/)"
  seed_flux_release
}

print_summary() {
  local rel_kc=${AGENT_KUBECONFIG:-${DEMO_KUBECONFIG}} rel_tok=${TOKEN_FILE#"${REPO_ROOT}"/}
  rel_kc=${rel_kc#"${REPO_ROOT}"/}
  log "ready after ${SECONDS} s"
  cat <<EOF

  GitOpsHQ dev stack is running (Ctrl-C stops it)

  Web UI               ${HUB_URL}/   (sign in with the owner API token below)
  Hub REST             ${HUB_URL}
  REST API base        ${HUB_URL}/api/v2
  Agent gRPC (TLS)     ${HOST}:${HUB_GRPC_PORT}   (local CA: .gitopshq/tls/ca.crt)
  Temporal Web UI      http://${HOST}:${TEMPORAL_UI_PORT}   (gRPC ${HOST}:${TEMPORAL_PORT})
  OPA                  ${OPA_URL}
  Demo project         ${HUB_URL}/api/v2/projects/${DEMO_PROJECT_ID}   (generations: …/generations)
  Hosted Git           ${DEMO_CLONE_URL}
                       read-only; clone with a deploy token from
                       POST /api/v2/projects/${DEMO_PROJECT_ID}/deploy-tokens {"name":"me"}
EOF
  if [ -n "${KUBE_URL}" ]; then
    cat <<EOF
  demo Kubernetes API  ${KUBE_URL}
                       kubectl --kubeconfig ${rel_kc} get deployments -n demo
EOF
    if is_agent agent-direct; then
      cat <<EOF
  Demo agents          each with the ServiceAccount token of the agent chart's RBAC (not admin):
                       kubectl --kubeconfig ${AG_DIR[agent]#"${REPO_ROOT}"/}/kubeconfig auth whoami
  Direct delivery      cluster demo-direct, project shop (${HUB_URL}/projects/${SHOP_PROJECT_ID}/releases):
                       the agent applies each release itself into namespace shop-dev; see the
                       cluster's Direct deploy, Drift, Credentials and Bindings tabs
EOF
    fi
  else
    echo "  Kubernetes           KUBECONFIG=${AGENT_KUBECONFIG} (yours; testkube not started)"
  fi
  if [ -n "${FLUX_STATE}" ]; then
    cat <<EOF
  Flux                 source-controller, kustomize-controller $(tool_version source-controller) (namespace flux-system):
                       ${FLUX_STATE}
EOF
  fi
  if [ -n "${GITOPSHQ_BOOTSTRAP_TOKEN:-}" ]; then
    cat <<EOF

  Log in with the owner token from GITOPSHQ_BOOTSTRAP_TOKEN, e.g.
    curl -H "Authorization: Bearer \$GITOPSHQ_BOOTSTRAP_TOKEN" ${HUB_URL}/api/v2/clusters
  or with the command line (docs/cli.md):
    GITOPSHQ_TOKEN=\$GITOPSHQ_BOOTSTRAP_TOKEN cli/bin/gitopshq login --server ${HUB_URL}
EOF
  else
    cat <<EOF

  Log in with the owner API token in ${rel_tok}, e.g.
    curl -H "Authorization: Bearer \$(cat ${rel_tok})" ${HUB_URL}/api/v2/clusters
  or with the command line (docs/cli.md; --device signs in through SSO instead):
    cli/bin/gitopshq login --server ${HUB_URL} --token-stdin < ${rel_tok}
EOF
  fi
  cat <<EOF

  SSO (OIDC provider)  ${IDP_URL}   users demo (admin) and dev (member),
                       password $(cat "${IDP_PASSWORD_FILE}")  (${IDP_PASSWORD_FILE#"${REPO_ROOT}"/})
                       web UI: ${HUB_URL}/ -> "Sign in with SSO"

  Logs                 ${LOG_DIR#"${REPO_ROOT}"/}/{$(IFS=,; echo "${PROC_NAMES[*]}")}.log
  PostgreSQL           jdbc:postgresql://${HOST}:5432/${DEV_DB} (user gitopshq, password gitopshq; keeps running after Ctrl-C)

EOF
}

# Waits until Ctrl-C, or until one of our processes dies.
supervise() {
  local name
  while :; do
    for name in "${PROC_NAMES[@]}"; do
      [ -n "${PROC_PID[$name]:-}" ] || continue
      proc_alive "$name" && continue
      proc_exit_code "$name"
      unset 'PROC_PID[$name]'
      if is_agent "$name" && [ "${PROC_RC}" = "${AGENT_EXIT_IDENTITY_REJECTED}" ] && reregister_agent "$name"; then
        continue
      fi
      if [ "$name" = flux ]; then
        adopt_flux
        continue
      fi
      echo >&2
      echo "error: ${name} exited (code ${PROC_RC}); stopping the rest" >&2
      show_log_tail "$name"
      exit 1
    done
    sleep 1
  done
}

main() {
  # The HA profile (make run-ha): the Temporal server and replicas behind HAProxy instead.
  if [ "${1:-}" = --ha ]; then
    shift
    exec "${TOOLS_DIR}/dev/run-ha.sh" "$@"
  fi
  cd "${REPO_ROOT}"
  trap cleanup EXIT
  trap 'echo; exit 130' INT
  trap 'exit 143' TERM
  trap 'exit 129' HUP

  check_prerequisites
  check_ports
  prepare_dirs
  make_tls
  start_postgres
  build_tools
  build_java
  stage_jars
  # Ports again: a build that took minutes leaves time for someone else to
  # take one.
  check_ports
  launch_temporal
  launch_opa
  launch_testkube
  launch_idp
  await_temporal
  await_opa
  launch_hub
  await_testkube
  await_idp
  await_hub
  start_demo_agents
  wait_connected
  seed_demo_project
  launch_flux
  if is_agent agent-direct; then seed_direct_demo; fi
  print_summary
  supervise
}

main "$@"
