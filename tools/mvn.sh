#!/usr/bin/env bash
# Runs Maven with a JDK >= 21 (found by tools/lib/java.sh) and quiet, CI-friendly
# output: batch mode (-B, no colours or prompts) and no download progress (-ntp).
#
#   tools/mvn.sh verify
#   tools/mvn.sh -q -DskipTests install
#   tools/mvn.sh --check      only check that Maven and a JDK >= 21 are there
#
# Env knobs: MAVEN_ARGS / MAVEN_OPTS are honoured by Maven itself;
# GITOPSHQ_MVN (path of the mvn to use, default: mvn on PATH).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

mvn_bin=${GITOPSHQ_MVN:-mvn}
command -v "$mvn_bin" >/dev/null 2>&1 ||
  die "Maven is not installed; install it with 'apt-get install maven' (>= 3.8) or from https://maven.apache.org/download.cgi"

JAVA_HOME=$("${TOOLS_DIR}/lib/java.sh") || exit 1
export JAVA_HOME
export PATH="${JAVA_HOME}/bin:${PATH}"

# Maven 3.8/3.9 bundle a Guava that calls sun.misc.Unsafe; JDK 23+ prints four
# WARNING lines about it on every run. Allow it explicitly to keep logs clean.
java_major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "${JAVA_HOME}/release" 2>/dev/null || true)
if [ -n "${java_major}" ] && [ "${java_major}" -ge 23 ] && [[ "${MAVEN_OPTS:-}" != *sun-misc-unsafe-memory-access* ]]; then
  export MAVEN_OPTS="${MAVEN_OPTS:+${MAVEN_OPTS} }--sun-misc-unsafe-memory-access=allow"
fi

[ "${1:-}" != --check ] || exit 0

# Maven's own JVM gets an explicit heap (the forked test JVMs have theirs in the poms).
if [[ "${MAVEN_OPTS:-}" != *-Xmx* ]]; then
  export MAVEN_OPTS="${MAVEN_OPTS:+${MAVEN_OPTS} }-Xmx1g"
fi

# Debian's Maven 3.8 (jansi 2.4) writes ESC[0m "reset colour" codes around its
# output even in batch mode, which litters CI logs; jansi.noreset stops that.
if [[ "${MAVEN_OPTS:-}" != *jansi.noreset* ]]; then
  export MAVEN_OPTS="${MAVEN_OPTS:+${MAVEN_OPTS} }-Djansi.noreset=true"
fi

cd "${REPO_ROOT}"
exec "$mvn_bin" -B -ntp "$@"
