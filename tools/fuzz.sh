#!/usr/bin/env bash
# Fuzzes the hub's REST API with Schemathesis (`make fuzz`; .ci/run calls it after `make test`).
#
# Starts a whole stack as `make run` does (tools/dev/run.sh), but on free loopback ports, with its
# own state directory (target/fuzz/stack) and database (gitopshq_fuzz, dropped first), the Fabric8
# mock as the demo cluster and a fresh bootstrap owner token; then runs Schemathesis against the
# OpenAPI document the hub serves (/v3/api-docs) with that token, and stops the stack on exit,
# whatever the outcome. The run is bounded: examples per operation, a time budget, a fixed seed.
#
# Checked: no 5xx (not_a_server_error), every status, content type and body as the document says
# (status_code_conformance, content_type_conformance, response_schema_conformance), and more (see
# CHECKS below). Not sent: operations that would reach beyond this machine or end the run's own
# access (EXCLUDED below).
#
# Env knobs:
#   GITOPSHQ_FUZZ_MAX_EXAMPLES  test cases per operation and phase (10)
#   GITOPSHQ_FUZZ_MAX_TIME      seconds for the Schemathesis run as a whole (300)
#   GITOPSHQ_FUZZ_SEED          the seed (20261124); change it to explore, keep it for CI
#   GITOPSHQ_FUZZ_ARGS          extra `st run` arguments, e.g. "--include-path-regex ^/api/v2/clusters"
#   GITOPSHQ_FUZZ_STACK_TIMEOUT seconds to wait for the stack (600)
# The report (JUnit XML, and a cassette of every request) is left in target/fuzz/report.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

readonly SCHEMATHESIS_VERSION=4.32.5
readonly VENV="${TOOLS_CACHE}/schemathesis-${SCHEMATHESIS_VERSION}/venv"
readonly WORK="${REPO_ROOT}/target/fuzz"
readonly STATE="${WORK}/stack" REPORT="${WORK}/report"
readonly DB=gitopshq_fuzz
readonly MAX_EXAMPLES="${GITOPSHQ_FUZZ_MAX_EXAMPLES:-10}"
readonly MAX_TIME="${GITOPSHQ_FUZZ_MAX_TIME:-300}"
readonly SEED="${GITOPSHQ_FUZZ_SEED:-20261124}"

# Not checked: ignored_auth, use_after_free, ensure_resource_availability and
# object_level_authorization need a stateful run with several users; negative_data_rejection
# flags every optional query parameter sent empty (`?to=`), which Spring reads as absent, on purpose.
readonly CHECKS=not_a_server_error,status_code_conformance,content_type_conformance,response_headers_conformance,response_schema_conformance,missing_required_header,unsupported_method

# Operation ids (OpenApiConfig makes them <controller>_<method>) that are not sent:
#   notification_put, notification_test  a webhook URL the fuzzer makes up would be called: traffic
#                                         to addresses off this machine
#   member_remove, member_update,         could remove or demote the run's own owner, or revoke its
#   member_revokeToken, auth_logout       token, and every later request would be a 401
readonly EXCLUDED=(notification_put notification_test member_remove member_update member_revokeToken auth_logout)

install_schemathesis() {
  [ -f "${VENV}/.installed" ] && return 0
  command -v python3 >/dev/null 2>&1 || die "python3 is missing; install it with: apt-get install -y python3 python3-venv"
  python3 -c 'import venv, ensurepip' 2>/dev/null || die "python3's venv is missing; install it with: apt-get install -y python3-venv"
  log "installing Schemathesis ${SCHEMATHESIS_VERSION} (PyPI) into ${VENV}"
  rm -rf "${VENV}"
  python3 -m venv "${VENV}"
  "${VENV}/bin/pip" install -q --disable-pip-version-check "schemathesis==${SCHEMATHESIS_VERSION}"
  touch "${VENV}/.installed"
}

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

main() {
  local hub grpc temporal temporal_ui opa idp pid jar skip=1 token
  install_schemathesis
  rm -rf "${WORK}"
  mkdir -p "${STATE}" "${REPORT}"
  chmod 700 "${WORK}"
  "${TOOLS_DIR}/dev/postgres.sh" >/dev/null
  if [ "$(id -un)" = postgres ]; then psql -qAtc "drop database if exists ${DB} with (force)"
  else runuser -u postgres -- psql -qAtc "drop database if exists ${DB} with (force)"; fi
  hub=$(free_port); grpc=$(free_port); temporal=$(free_port); temporal_ui=$(free_port); opa=$(free_port); idp=$(free_port)
  for jar in api/target/gitopshq-hub.jar agent/target/gitopshq-agent.jar testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar idp/target/gitopshq-dev-idp.jar; do
    [ -f "${REPO_ROOT}/$jar" ] || skip=0
  done
  # The owner token of this stack only (its database is dropped by the next run).
  token="ghq-fuzz-$(od -An -tx1 -N24 /dev/urandom | tr -d ' \n')"
  log "fuzz: starting a stack on 127.0.0.1:${hub} (logs: ${STATE#"${REPO_ROOT}"/}/)"
  GITOPSHQ_STATE_DIR="${STATE}" GITOPSHQ_DEV_DB="${DB}" GITOPSHQ_SKIP_JAVA_BUILD="${skip}" \
    GITOPSHQ_DEMO_KUBE=mock GITOPSHQ_BOOTSTRAP_TOKEN="${token}" \
    GITOPSHQ_HUB_PORT="${hub}" GITOPSHQ_GRPC_PORT="${grpc}" GITOPSHQ_TEMPORAL_PORT="${temporal}" \
    GITOPSHQ_TEMPORAL_UI_PORT="${temporal_ui}" GITOPSHQ_OPA_PORT="${opa}" GITOPSHQ_DEV_IDP_PORT="${idp}" \
    setsid "${TOOLS_DIR}/dev/run.sh" >"${STATE}/run.log" 2>&1 </dev/null &
  pid=$!
  # run.sh stops what it started when it gets TERM; it is given the time for that before
  # anything is killed.
  # shellcheck disable=SC2064  # expand now: the trap must stop this stack
  trap "kill -TERM $pid 2>/dev/null; for _ in \$(seq 1 180); do kill -0 $pid 2>/dev/null || break; sleep 0.5; done; kill -KILL -- -$pid 2>/dev/null || true" EXIT
  local deadline=$(( SECONDS + ${GITOPSHQ_FUZZ_STACK_TIMEOUT:-600} ))
  until grep -q "dev stack is running" "${STATE}/run.log"; do
    if ! kill -0 "$pid" 2>/dev/null || [ "$SECONDS" -ge "$deadline" ]; then
      tail -n 40 "${STATE}/run.log" >&2
      die "the fuzz stack did not start (log: ${STATE}/run.log)"
    fi
    sleep 2
  done

  local -a excluded=() extra=()
  local id
  for id in "${EXCLUDED[@]}"; do excluded+=(--exclude-operation-id "$id"); done
  # shellcheck disable=SC2206  # extra arguments are split on spaces on purpose
  [ -z "${GITOPSHQ_FUZZ_ARGS:-}" ] || extra=(${GITOPSHQ_FUZZ_ARGS})
  log "fuzz: Schemathesis ${SCHEMATHESIS_VERSION}, ${MAX_EXAMPLES} examples per operation, at most ${MAX_TIME} s, seed ${SEED}"
  # The token goes through the environment into Schemathesis' own config file, not the command
  # line; Schemathesis masks the Authorization header in what it prints.
  cat >"${WORK}/schemathesis.toml" <<'EOF'
[headers]
Authorization = "Bearer ${GITOPSHQ_FUZZ_TOKEN}"
EOF
  local rc=0
  # Schemathesis keeps a cache (.schemathesis/) in its working directory: keep it in target/.
  cd "${WORK}"
  GITOPSHQ_FUZZ_TOKEN="${token}" NO_COLOR=1 "${VENV}/bin/st" --no-color --config-file "${WORK}/schemathesis.toml" run \
    "http://127.0.0.1:${hub}/v3/api-docs" --url "http://127.0.0.1:${hub}" \
    --checks "${CHECKS}" "${excluded[@]}" \
    --phases examples,coverage,fuzzing \
    --max-examples "${MAX_EXAMPLES}" --max-time "${MAX_TIME}" --seed "${SEED}" \
    --workers 2 --request-timeout 30 \
    --report junit,vcr --report-dir "${REPORT}" "${extra[@]}" || rc=$?
  if [ "$rc" != 0 ]; then
    echo "error: Schemathesis found failures (above; every request is in ${REPORT#"${REPO_ROOT}"/}/, the hub's log in ${STATE#"${REPO_ROOT}"/}/logs/hub.log)" >&2
    exit "$rc"
  fi
  log "fuzz: no failures"
}

main "$@"
