#!/usr/bin/env bash
# Checks every shell script the project runs: `bash -n` (syntax) always, and
# then, when it is installed (`apt-get install shellcheck`), the shellcheck
# linter with tools/.shellcheckrc. `make lint` and `make test` call it.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

cd "${REPO_ROOT}"
mapfile -t scripts < <(git ls-files '*.sh' .ci/run)
log "bash -n (${#scripts[@]} scripts)"
for f in "${scripts[@]}"; do
  bash -n "$f" || die "syntax error in $f"
done
if command -v shellcheck >/dev/null 2>&1; then
  log "shellcheck (${#scripts[@]} scripts)"
  shellcheck -x "${scripts[@]}"
else
  log "shellcheck: not installed, skipped (apt-get install shellcheck)"
fi
