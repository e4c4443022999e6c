#!/usr/bin/env bash
# Prints the absolute path of a cached tool binary built by tools/build-tools.sh.
#
#   tools/bin-path.sh opa          -> /root/.cache/gitopshq/tools/opa-v1.22.2/opa
#   tools/bin-path.sh --no-check temporal   (print even if not built yet)
#
# Exits 1 with a hint when the binary has not been built, so callers such as
# `GITOPSHQ_OPA_BIN=$(tools/bin-path.sh opa)` fail loudly instead of exporting
# a path to nothing.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

check=1
if [ "${1:-}" = --no-check ]; then check=0; shift; fi
[ $# -eq 1 ] || die "usage: tools/bin-path.sh [--no-check] <$(IFS="|"; echo "${KNOWN_TOOLS[*]}")>"
is_known_tool "$1" || die "unknown tool '$1' (known: ${KNOWN_TOOLS[*]})"

path=$(tool_bin_path "$1")
if [ "$check" = 1 ] && [ ! -x "$path" ]; then
  die "$1 is not built yet ($path missing); run: tools/build-tools.sh $(tool_build_target "$1")"
fi
echo "$path"
