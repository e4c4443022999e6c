#!/usr/bin/env bash
# Prints the JAVA_HOME GitOpsHQ should use: a JDK (not a JRE: Maven needs
# javac) of version 21 or newer.
#
#   export JAVA_HOME="$(tools/lib/java.sh)"
#
# Order: $JAVA_HOME when it points at a JDK >= 21 (an explicit choice wins),
# otherwise the newest JDK >= 21 under /usr/lib/jvm (GITOPSHQ_JVM_DIR to look
# elsewhere), otherwise the JDK the `javac` on PATH belongs to. The machine's
# default `java` may well be 17, which is why we don't just trust PATH.
# Exits 1 with one line on stderr saying how to get a JDK when there is none.
set -euo pipefail

MIN_MAJOR=21

# Full version of the JDK in $1 ("25.0.3", "21.0.8", "1.8.0_452"), or nothing.
jdk_version() {
  local dir=$1 v=''
  [ -x "$dir/bin/javac" ] && [ -x "$dir/bin/java" ] || return 0
  if [ -f "$dir/release" ]; then
    v=$(sed -n 's/^JAVA_VERSION="\(.*\)"$/\1/p' "$dir/release" | head -n1)
  fi
  if [ -z "$v" ]; then
    # No release file (unusual layouts): ask the JVM itself.
    v=$("$dir/bin/java" -XshowSettings:properties -version 2>&1 |
        sed -n 's/^ *java\.version = //p' | head -n1)
  fi
  echo "$v"
}

# "1.8.0_452" -> 8, "25.0.3" -> 25, "21" -> 21.
major_of() {
  local v=$1
  case "$v" in
    1.*) v=${v#1.}; echo "${v%%.*}" ;;
    *)   v=${v%%[.+-]*}; echo "${v%%_*}" ;;
  esac
}

ok_jdk() {
  local v m
  v=$(jdk_version "$1"); [ -n "$v" ] || return 1
  m=$(major_of "$v"); [ -n "$m" ] && [ "$m" -ge "$MIN_MAJOR" ] 2>/dev/null
}

if [ -n "${JAVA_HOME:-}" ] && ok_jdk "$JAVA_HOME"; then
  echo "$JAVA_HOME"
  exit 0
fi

# Collect candidates (resolving symlinks so java-1.21.0-openjdk-amd64 and
# java-21-openjdk-amd64 count once), then pick the highest version.
declare -A seen=()
best='' best_v=''
consider() {
  local dir v
  dir=$(readlink -f "$1" 2>/dev/null) || return 0
  [ -d "$dir" ] && [ -z "${seen[$dir]:-}" ] || return 0
  seen[$dir]=1
  ok_jdk "$dir" || return 0
  v=$(jdk_version "$dir")
  if [ -z "$best" ] || [ "$(printf '%s\n%s\n' "$best_v" "$v" | sort -V | tail -n1)" = "$v" ]; then
    best=$dir best_v=$v
  fi
}
for d in "${GITOPSHQ_JVM_DIR:-/usr/lib/jvm}"/*/; do
  [ -d "$d" ] && consider "${d%/}"
done
if [ -z "$best" ] && command -v javac >/dev/null 2>&1; then
  consider "$(dirname "$(dirname "$(readlink -f "$(command -v javac)")")")"
fi

if [ -z "$best" ]; then
  echo "error: no JDK >= ${MIN_MAJOR} found (checked JAVA_HOME=${JAVA_HOME:-<unset>} and ${GITOPSHQ_JVM_DIR:-/usr/lib/jvm}); install one, e.g. 'apt-get install openjdk-21-jdk' (Debian 13 / Ubuntu) or Temurin 21+ from https://adoptium.net/installation/linux/ ('apt-get install temurin-21-jdk'), or point JAVA_HOME at it" >&2
  exit 1
fi
echo "$best"
