# shellcheck shell=bash
# Process handling shared by tools/dev/run.sh (make run) and bench/lib/stack.sh (the benchmarks'
# stacks). Source it after common.sh, with LOG_DIR and HOST set:
#
#   . "${TOOLS_DIR}/lib/procs.sh"
#
# Every process runs in a session of its own (the terminal's Ctrl-C reaches only the script, which
# stops everything in order, and killing the group also ends what the process spawned), with its
# output in ${LOG_DIR}/<name>.log.

# shellcheck disable=SC2034  # the variables are read by the scripts sourcing this

if [ -n "${__GITOPSHQ_PROCS_SH:-}" ]; then return 0; fi
__GITOPSHQ_PROCS_SH=1

PROC_NAMES=()            # in start order; stopped in reverse
declare -A PROC_PID=()   # name -> pid (== process group id)
declare -A PROC_LOG=()   # name -> log file
PROC_RC=0
FORCE_STOP=${FORCE_STOP:-0}

# True when something listens on ${HOST}:$1 (or any address on that port).
port_in_use() {
  local port=$1
  if command -v ss >/dev/null 2>&1; then
    [ -n "$(ss -Hltn "sport = :${port}" 2>/dev/null)" ]
  else
    (exec 3<>"/dev/tcp/${HOST}/${port}") 2>/dev/null
  fi
}

# require_free_ports <hint> <port:what>...: exits with an error on the first port something listens
# on, naming the port, what it is for and the hint (what may hold it: "is a previous 'make run'
# still running?"), before anything is started.
require_free_ports() {
  local hint=$1 entry port; shift
  for entry in "$@"; do
    port=${entry%%:*}
    if port_in_use "$port"; then
      die "port ${port} (${entry#*:}) is already in use, ${hint} See: ss -ltnp 'sport = :${port}'"
    fi
  done
}

port_accepts() { (exec 3<>"/dev/tcp/${HOST}/$1") 2>/dev/null; }

http_ok() { [ "$(curl -s -o /dev/null -m 3 -w '%{http_code}' "$1" 2>/dev/null)" = 200 ]; }

# A command line as it may be written to a log: GitOpsHQ tokens, and the value of every
# NAME=value whose name says it is a token, password or secret (GITOPSHQ_OPA_TOKEN=…,
# GITOPSHQ_DB_PASSWORD=…), become ***.
redact_args() {
  sed -E -e 's/(ghqa_reg_|ghqa_|ghqp_|ghqo_)[0-9A-Za-z]+/\1***/g' \
    -e 's/(^|[[:space:]])([-A-Za-z0-9_]*(TOKEN|PASSWORD|SECRET|token|password|secret)[-A-Za-z0-9_]*=)[^[:space:]]+/\1\2***/g' <<<"$1"
}

# start_proc <name> <command...>: in the background, in a session of its own, output in
# ${LOG_DIR}/<name>.log (the previous one kept as .log.1) under a header with the command line,
# secrets masked by redact_args (a registration token travels in the agent's environment, the
# OPA token and the database password in the hub's).
start_proc() {
  local name=$1 pid log="${LOG_DIR}/$1.log"; shift
  [ -f "$log" ] && mv -f "$log" "$log.1"
  printf '### %s started at %s\n### %s\n' "$name" "$(date -Is)" "$(redact_args "$*")" >"$log"
  setsid "$@" </dev/null >>"$log" 2>&1 &
  pid=$!
  [ -n "${PROC_LOG[$name]:-}" ] || PROC_NAMES+=("$name")   # a restarted process keeps its place
  PROC_PID[$name]=$pid
  PROC_LOG[$name]=$log
}

proc_alive() { local pid=${PROC_PID[$1]:-}; [ -n "$pid" ] && kill -0 "$pid" 2>/dev/null; }

# Sets PROC_RC to the exit code of a process that has ended. bash reaps its children as they exit
# and keeps their status until `wait` asks for it; this must run in this shell, never in a $(...)
# subshell, which has no children.
proc_exit_code() { PROC_RC=0; wait "${PROC_PID[$1]}" 2>/dev/null || PROC_RC=$?; }

show_log_tail() {
  local name=$1 lines=${2:-25}
  echo "---- last ${lines} lines of ${PROC_LOG[$name]#"${REPO_ROOT}"/} ----" >&2
  tail -n "$lines" "${PROC_LOG[$name]}" >&2 || true
  echo "----" >&2
}

# Reports a process that died and exits (the caller's EXIT trap stops the rest).
died() {
  local name=$1
  proc_exit_code "$name"
  unset 'PROC_PID[$name]'
  echo >&2
  echo "error: ${name} exited (code ${PROC_RC})${2:+ $2}" >&2
  show_log_tail "$name"
  exit 1
}

# Fails via died() when any started process other than $1 has exited.
check_others_alive() {
  local name
  for name in "${PROC_NAMES[@]}"; do
    if [ "$name" != "$1" ] && [ -n "${PROC_PID[$name]:-}" ] && ! proc_alive "$name"; then
      died "$name"
    fi
  done
}

# wait_for <what failed, e.g. "hub did not become healthy"> <timeout s> <proc> <command...>
# Polls the command until it succeeds; fails clearly on timeout or when the watched process dies
# meanwhile (no point waiting 120 s for a crashed hub).
wait_for() {
  local what=$1 timeout=$2 proc=$3 deadline; shift 3
  deadline=$(( SECONDS + timeout ))
  until "$@"; do
    if [ -n "$proc" ] && ! proc_alive "$proc"; then
      # A launcher that says it is ready and exits (kube.sh start) may do both between the check
      # and here: ask once more before calling it dead.
      "$@" && break
      died "$proc" "while starting"
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      echo "error: ${what} within ${timeout} s${proc:+; see ${PROC_LOG[$proc]#"${REPO_ROOT}"/}}" >&2
      [ -z "$proc" ] || show_log_tail "$proc"
      exit 1
    fi
    sleep 0.5
  done
}

# stop_proc <name> <grace s>: TERM to the process group, the grace period (cut short when
# FORCE_STOP=1), then KILL; stray members of the group go too.
stop_proc() {
  local name=$1 grace=$2 pid deadline
  pid=${PROC_PID[$name]:-}
  [ -n "$pid" ] || return 0
  if kill -0 "$pid" 2>/dev/null; then
    kill -TERM -- "-$pid" 2>/dev/null || kill -TERM "$pid" 2>/dev/null || true
    deadline=$(( SECONDS + grace ))
    while kill -0 "$pid" 2>/dev/null && [ "$SECONDS" -lt "$deadline" ] && [ "$FORCE_STOP" = 0 ]; do
      sleep 0.2
    done
    if kill -0 "$pid" 2>/dev/null; then
      echo "    ${name} did not stop in time; killing it" >&2
      kill -KILL -- "-$pid" 2>/dev/null || kill -KILL "$pid" 2>/dev/null || true
    fi
  fi
  kill -KILL -- "-$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  unset 'PROC_PID[$name]'
}
