#!/usr/bin/env bash
# Checks and tests the Rego in policies/ with the real OPA (built and cached by
# tools/build-tools.sh):
#
#   1. opa fmt --list --fail   every file is formatted (fix: opa fmt -w FILE)
#   2. opa check --strict      it compiles in strict mode
#   3. opa test -v             the *_test.rego suites pass, with the command
#                              types of docs/command-types.json as data
#
# Skipped with a notice while policies/ holds no .rego file yet.
# Maven copies the shipped policies into policies/target/; that copy is
# excluded so rules are not loaded twice.
#
# Env knobs: GITOPSHQ_OPA_BIN (an opa binary to use instead of the cached one).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

POLICY_DIR="${REPO_ROOT}/policies"

main() {
  local opa out files=() unformatted=()
  cd "${REPO_ROOT}"
  if [ -d "${POLICY_DIR}" ]; then
    mapfile -t files < <(find policies -name target -prune -o -name node_modules -prune \
                              -o -type f -name '*.rego' -print | sort)
  fi
  if [ ${#files[@]} -eq 0 ]; then
    log "policy tests: skipped (no .rego files under policies/ yet)"
    return 0
  fi

  if [ -n "${GITOPSHQ_OPA_BIN:-}" ]; then
    opa=${GITOPSHQ_OPA_BIN}
    [ -x "$opa" ] || die "GITOPSHQ_OPA_BIN=$opa is not an executable"
  else
    "${TOOLS_DIR}/build-tools.sh" opa >/dev/null
    opa=$("${TOOLS_DIR}/bin-path.sh" opa)
  fi

  log "opa fmt --list --fail (${#files[@]} files)"
  # fmt has no --ignore flag, hence the explicit file list.
  if ! out=$("$opa" fmt --list --fail "${files[@]}"); then
    mapfile -t unformatted <<<"$out"
    if [ -n "$out" ]; then
      printf '    not formatted: %s\n' "${unformatted[@]}" >&2
      # Show what would change: quicker to act on than a list of names.
      "$opa" fmt -d "${unformatted[@]}" >&2 || true
      die "Rego is not formatted; fix with: $opa fmt -w policies/"
    fi
    die "opa fmt failed"
  fi

  log "opa check --strict policies/"
  "$opa" check --strict --ignore target --ignore node_modules policies/

  # docs/command-types.json is generated from command_types.proto; the approval
  # policy's tests check its list of command types against it.
  log "opa test -v policies/ (with docs/command-types.json as data.command_types)"
  "$opa" test -v --ignore target --ignore node_modules policies/ \
    command_types:docs/command-types.json
}

main "$@"
