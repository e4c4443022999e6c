#!/usr/bin/env bash
# Builds and tests the web UI in ui/ with the machine's Node.js and npm (Debian's
# packages when missing); nothing downloads a Node binary or a browser.
#
#   tools/ui.sh build    npm ci (when package-lock.json changed) + the API types generated from
#                        docs/openapi.yaml (ui/src/api/schema.d.ts) and docs/command-types.json
#                        (ui/src/api/commandTypes.ts) + type check + vite build -> ui/dist
#   tools/ui.sh test     the API types, then the Vitest suite (components and the API client)
#   tools/ui.sh lint     ESLint (ui/eslint.config.js) and Prettier's check (ui/.prettierrc.json)
#   tools/ui.sh format   Prettier writes ui/'s formatting (what `make fmt` runs)
#   tools/ui.sh e2e      the Playwright end-to-end tests in Debian's chromium against a hub
#                        the test starts (ui/e2e/run.mjs)
#
# The hub's jar picks up ui/dist (api/pom.xml), so build the UI before Maven packages api.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

UI_DIR="${REPO_ROOT}/ui"

require_node() {
  if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
    [ "$(id -u)" = 0 ] || die "Node.js and npm are missing; install them with: sudo apt-get install nodejs npm"
    log "installing Node.js and npm (Debian's packages)"
    DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm >/dev/null 2>&1 ||
      { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q nodejs npm >/dev/null; } ||
      die "could not install nodejs and npm with apt-get"
  fi
  local major
  major=$(node -p 'process.versions.node.split(".")[0]')
  [ "$major" -ge 20 ] || die "Node.js $(node --version) is too old for the UI build (needs >= 20)"
}

# npm ci only when node_modules is missing or older than the lock file.
install_deps() {
  if [ ! -f "${UI_DIR}/node_modules/.package-lock.json" ] ||
     [ "${UI_DIR}/package-lock.json" -nt "${UI_DIR}/node_modules/.package-lock.json" ]; then
    log "npm ci (ui/)"
    (cd "${UI_DIR}" && npm ci --no-audit --no-fund --loglevel=error)
  fi
}

require_chromium() {
  command -v chromium >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "chromium is missing; install Debian's package with: sudo apt-get install chromium"
  log "installing Debian's chromium (the browser of the end-to-end tests)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q chromium >/dev/null; } ||
    die "could not install chromium with apt-get"
}

free_port() {
  node -e 'const s=require("net").createServer();s.listen(0,"127.0.0.1",()=>{console.log(s.address().port);s.close()})'
}

# A whole stack as `make run` starts it (tools/dev/run.sh), but on free ports, with its own state
# directory and database (gitopshq_e2e, dropped first), so it never touches a running `make run`.
# The browser tests run against it; the stack is stopped afterwards whatever the outcome.
e2e() {
  local state="${UI_DIR}/test-results/stack" db=gitopshq_e2e hub grpc temporal temporal_ui opa idp pid jar skip=1
  require_chromium
  rm -rf "$state"
  mkdir -p "$state"
  "${TOOLS_DIR}/dev/postgres.sh" >/dev/null
  if [ "$(id -un)" = postgres ]; then psql -qAtc "drop database if exists ${db} with (force)"
  else runuser -u postgres -- psql -qAtc "drop database if exists ${db} with (force)"; fi
  hub=$(free_port); grpc=$(free_port); temporal=$(free_port); temporal_ui=$(free_port); opa=$(free_port); idp=$(free_port)
  for jar in api/target/gitopshq-hub.jar agent/target/gitopshq-agent.jar testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar idp/target/gitopshq-dev-idp.jar; do
    [ -f "${REPO_ROOT}/$jar" ] || skip=0
  done
  log "ui e2e: starting a stack on 127.0.0.1:${hub} (logs: ${state#"${REPO_ROOT}"/}/)"
  # With the Flux controllers: project demo's dev is delivered by Flux, whose objects the hub wires.
  GITOPSHQ_STATE_DIR="$state" GITOPSHQ_DEV_DB="$db" GITOPSHQ_SKIP_JAVA_BUILD="$skip" GITOPSHQ_DEMO_FLUX=on \
    GITOPSHQ_HUB_PORT="$hub" GITOPSHQ_GRPC_PORT="$grpc" GITOPSHQ_TEMPORAL_PORT="$temporal" \
    GITOPSHQ_TEMPORAL_UI_PORT="$temporal_ui" GITOPSHQ_OPA_PORT="$opa" GITOPSHQ_DEV_IDP_PORT="$idp" \
    setsid "${TOOLS_DIR}/dev/run.sh" >"$state/run.log" 2>&1 </dev/null &
  pid=$!
  # run.sh stops what it started (each process in a session of its own, and the demo cluster
  # through kube.sh) when it gets TERM; it is given the time for that before anything is killed.
  # shellcheck disable=SC2064  # expand now: the trap must stop this stack
  trap "kill -TERM $pid 2>/dev/null; for _ in \$(seq 1 180); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done; kill -KILL -- -$pid 2>/dev/null || true" EXIT
  local deadline=$(( SECONDS + ${GITOPSHQ_E2E_STACK_TIMEOUT:-900} ))
  until grep -q "dev stack is running" "$state/run.log"; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 40 "$state/run.log" >&2
      die "the e2e stack did not start (log: $state/run.log)"
    fi
    sleep 2
  done
  cd "${UI_DIR}"
  GITOPSHQ_E2E_URL="http://127.0.0.1:${hub}" GITOPSHQ_E2E_TOKEN="$(cat "$state/data/bootstrap-token")" \
    GITOPSHQ_E2E_IDP_PASSWORD="$(cat "$state/data/idp-demo-password")" GITOPSHQ_E2E_STATE="$state" \
    node e2e/run.mjs
}

# The REST API's TypeScript types, from the committed docs/openapi.yaml, and the command types,
# from the committed docs/command-types.json (neither output is committed): a REST or command type
# change the UI does not follow fails the type check.
gen_api() {
  log "ui: API types from docs/openapi.yaml and docs/command-types.json -> ui/src/api/"
  npm run --silent gen:api >/dev/null
}

main() {
  local what=${1:-build}
  require_node
  install_deps
  cd "${UI_DIR}"
  case "$what" in
    build)
      gen_api
      log "ui: type check and vite build -> ui/dist"
      npx --no-install tsc -b
      npx --no-install vite build --logLevel warn
      ;;
    test)
      gen_api
      log "ui: vitest"
      npx --no-install vitest run
      ;;
    lint)
      log "ui: eslint and prettier --check ('make fmt' or 'tools/ui.sh format' fixes the formatting)"
      npm run --silent lint
      npm run --silent format:check
      ;;
    format)
      log "ui: prettier --write"
      npm run --silent format >/dev/null
      ;;
    e2e)
      log "ui: playwright end to end (Debian's chromium)"
      e2e
      ;;
    *) die "usage: tools/ui.sh build|test|lint|format|e2e" ;;
  esac
}

main "$@"
