#!/usr/bin/env bash
# Builds the Java artifacts the dev stack runs:
#   api/target/gitopshq-hub.jar                              (Spring Boot fat jar)
#   agent/target/gitopshq-agent.jar                          (shaded)
#   testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar (shaded)
#   idp/target/gitopshq-dev-idp.jar                         (development OIDC provider)
#   cli/target/gitopshq-cli.jar                              (shaded; cli/bin/gitopshq runs it)
# with `mvn -B -ntp -q -DskipTests install`.
#
#   tools/dev/build-java.sh               always build (make build)
#   tools/dev/build-java.sh --if-changed  build only when a source is newer than
#                                         the last successful build (make run)
#
# "Changed" means: one of the jars is missing, or a file under the root pom.xml
# or a Maven module (or ui/) is newer than .gitopshq/build.stamp. Maven is not
# started at all otherwise: even a nearly up-to-date `mvn install` takes ~25 s
# on 2 cores, which would be most of the time budget of a warm `make run`.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

# The build belongs to the checkout, not to one stack's state directory.
STAMP="${REPO_ROOT}/.gitopshq/build.stamp"
JARS=(
  api/target/gitopshq-hub.jar
  agent/target/gitopshq-agent.jar
  testkube/target/gitopshq-testkube-0.1.0-SNAPSHOT-all.jar
  idp/target/gitopshq-dev-idp.jar
  cli/target/gitopshq-cli.jar
)

# The directories whose content goes into the jars: the root pom plus every
# <module> it lists (read from pom.xml so a new module is covered without
# touching this script), and ui/ once it exists.
source_paths() {
  local m
  echo pom.xml
  sed -n 's:.*<module>[[:space:]]*\([^<[:space:]]*\)[[:space:]]*</module>.*:\1:p' pom.xml |
    while read -r m; do [ ! -e "$m" ] || echo "$m"; done
  [ -d ui ] && echo ui
  return 0
}

# Prints why a build is needed (one line), or nothing when it is not.
why_build() {
  local jar newer
  for jar in "${JARS[@]}"; do
    [ -f "$jar" ] || { echo "$jar is missing"; return; }
  done
  [ -f "$STAMP" ] || { echo "no record of a previous build"; return; }
  # Build outputs and dependency folders are not sources.
  # shellcheck disable=SC2046  # word splitting of the path list is intended
  newer=$(find $(source_paths) \
            \( -name target -o -name node_modules -o -name dist -o -name .idea \) -prune \
            -o -type f -newer "$STAMP" -print 2>/dev/null | head -n 1)
  [ -z "$newer" ] || echo "$newer changed"
}

main() {
  local if_changed=0 reason start jar missing=()
  case "${1:-}" in
    --if-changed) if_changed=1 ;;
    "") ;;
    *) die "usage: tools/dev/build-java.sh [--if-changed]" ;;
  esac
  cd "${REPO_ROOT}"

  if [ "$if_changed" = 1 ]; then
    reason=$(why_build)
    if [ -z "$reason" ]; then
      log "Java artifacts are up to date (no source newer than .gitopshq/build.stamp)"
      return 0
    fi
  else
    reason="requested"
  fi

  # Missing Maven or JDK: let mvn.sh say so in one line, before we announce a build.
  "${TOOLS_DIR}/mvn.sh" --check || exit 1
  "${TOOLS_DIR}/ui.sh" build
  log "building Java artifacts ($reason): mvn -q -DskipTests install"
  info "this takes a while; the very first build also downloads the dependencies"
  mkdir -p "$(dirname "${STAMP}")"
  # Take the timestamp *before* Maven runs: a file saved during the build is
  # then newer than the stamp and triggers the next build.
  touch "${STAMP}.new"
  start=$(date +%s)
  if ! "${TOOLS_DIR}/mvn.sh" -q -DskipTests install; then
    rm -f "${STAMP}.new"
    die "the Maven build failed (output above); fix it and run again"
  fi
  for jar in "${JARS[@]}"; do [ -f "$jar" ] || missing+=("$jar"); done
  if [ ${#missing[@]} -gt 0 ]; then
    rm -f "${STAMP}.new"
    die "Maven succeeded but did not produce: ${missing[*]}"
  fi
  mv -f "${STAMP}.new" "${STAMP}"
  log "Java artifacts built in $(( $(date +%s) - start ))s"
}

main "$@"
