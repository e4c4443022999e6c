# shellcheck shell=bash
# The HA profile (tools/dev/run-ha.sh) as the tests drive it: tools/dev/test-ha.sh and
# tools/dev/test-failover.sh start it in the background on ports and databases of their own, wait
# for the file it writes once everything is up, and stop it at the end. Source it after common.sh:
#
#   . "${TOOLS_DIR}/lib/ha.sh"

# shellcheck disable=SC2034  # the variables are read by the scripts sourcing this

if [ -n "${__GITOPSHQ_HA_SH:-}" ]; then return 0; fi
__GITOPSHQ_HA_SH=1

HA_PID=''   # run-ha.sh, in a session of its own: its pid is its process group's
HA_LOG=''   # run-ha.sh's output

# ha_launch <log file> <replicas> [NAME=value ...]: run-ha.sh --replicas <replicas> in the
# background with these settings (ports, databases, GITOPSHQ_HA_READY_FILE, ...), its output in
# <log file>.
ha_launch() {
  HA_LOG=$1
  local replicas=$2
  shift 2
  env "$@" setsid "${TOOLS_DIR}/dev/run-ha.sh" --replicas "${replicas}" </dev/null >"${HA_LOG}" 2>&1 &
  HA_PID=$!
}

# ha_await_ready <ready file> <timeout s>: waits until run-ha.sh has written <ready file>
# (GITOPSHQ_HA_READY_FILE) and reads its NAME=value lines (LB_URL, LB_GRPC, STATS_URL,
# TEMPORAL_ADDRESS, TEMPORAL_CLI, TOKEN_FILE, RUN_DIR, REPLICA_URL_<i>). Exits with the last 40
# lines of its log when run-ha.sh ends first or the timeout passes.
ha_await_ready() {
  local ready=$1 timeout=$2 deadline
  deadline=$(( SECONDS + timeout ))
  until [ -s "${ready}" ]; do
    if ! kill -0 "${HA_PID}" 2>/dev/null; then
      tail -n 40 "${HA_LOG}" >&2
      die "run-ha.sh exited before the stack was ready"
    fi
    [ "$SECONDS" -lt "$deadline" ] || { tail -n 40 "${HA_LOG}" >&2; die "the stack was not ready within ${timeout} s"; }
    sleep 2
  done
  # shellcheck disable=SC1090  # written by run-ha.sh: NAME=value lines
  . "${ready}"
}

# ha_stop: TERM to run-ha.sh, which stops what it started in order; after 90 s, KILL to its process
# group. Nothing when it was not started or has stopped.
ha_stop() {
  local deadline
  [ -n "${HA_PID}" ] || return 0
  if kill -0 "${HA_PID}" 2>/dev/null; then
    log "stopping the HA profile"
    kill -TERM "${HA_PID}" 2>/dev/null || true
    deadline=$(( SECONDS + 90 ))
    while kill -0 "${HA_PID}" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ]; do sleep 1; done
    if kill -0 "${HA_PID}" 2>/dev/null; then
      warn "run-ha.sh did not stop in 90 s; killing its process group"
      kill -KILL -- "-${HA_PID}" 2>/dev/null || true
    fi
  fi
  wait "${HA_PID}" 2>/dev/null || true
  HA_PID=''
}
