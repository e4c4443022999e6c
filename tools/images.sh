#!/usr/bin/env bash
# Builds the hub and agent OCI images as tarballs, without a Docker daemon or a
# registry (no base image is pulled):
#   api/target/hub-image.tar      ghcr.io/gitopshq-io/gitopshq-hub:0.1.0
#   agent/target/agent-image.tar  ghcr.io/gitopshq-io/gitopshq-agent:0.1.0 (the charts' default image)
# Both are Jib images (`mvn -Pimages package`, jib:buildTar) on `scratch` plus a
# root filesystem made here, in target/images/rootfs:
#   /opt/java            a Java runtime jlink'ed from the build JDK (the modules
#                        the hub and agent use, no debug symbols, no man pages)
#   /lib, /lib64, /usr/lib  the C libraries that runtime loads (found with ldd)
#   /etc/passwd, /etc/group the non-root user and group nonroot (65532)
#   /etc/ssl/certs       the build machine's CA bundle (for TLS to the hub,
#                        OIDC, OPA, Kubernetes)
#   /tmp                 empty: charts mount an emptyDir here, the root stays
#                        read-only
# and, in the hub's image only, /opt/gitopshq/bin/render-worker (tools/render-worker,
# built by build-tools.sh: the process the hub renders Helm charts in; it needs
# only the C library, which the runtime's libraries bring).
# The images run as 65532:65532. Then each image is checked: its config names
# the user, and its root filesystem runs `java -version` as that user in a
# chroot; the agent's main starts and refuses an empty configuration.
#
#   tools/images.sh            build, check
#   tools/images.sh --check    check the tarballs that are there
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

readonly OUT="${REPO_ROOT}/target/images"
readonly ROOTFS="${OUT}/rootfs"
readonly HUB_EXTRA="${OUT}/hub-extra"
readonly MODULES="java.base,java.compiler,java.desktop,java.instrument,java.logging,java.management,java.management.rmi,java.naming,java.net.http,java.prefs,java.rmi,java.scripting,java.security.jgss,java.security.sasl,java.sql,java.transaction.xa,java.xml,java.xml.crypto,jdk.crypto.cryptoki,jdk.crypto.ec,jdk.httpserver,jdk.jfr,jdk.management,jdk.naming.dns,jdk.net,jdk.unsupported,jdk.zipfs"

java_home() { "${TOOLS_DIR}/lib/java.sh"; }

make_rootfs() {
  local jdk lib
  jdk=$(java_home)
  log "root filesystem in ${ROOTFS#"${REPO_ROOT}"/} (Java runtime from ${jdk})"
  rm -rf "${ROOTFS}"
  mkdir -p "${ROOTFS}/opt" "${ROOTFS}/etc/ssl/certs" "${ROOTFS}/tmp"
  "${jdk}/bin/jlink" --add-modules "${MODULES}" --strip-debug --no-header-files \
    --no-man-pages --output "${ROOTFS}/opt/java"
  # Every shared library the runtime's binaries and libraries load, at the same path.
  while read -r lib; do
    [ -n "$lib" ] || continue
    mkdir -p "${ROOTFS}$(dirname "$lib")"
    cp -L "$lib" "${ROOTFS}${lib}"
  done < <(find "${ROOTFS}/opt/java" -type f \( -name '*.so' -o -path '*/bin/*' \) -print0 |
    xargs -0 ldd 2>/dev/null | grep -o '/[^ ]*\.so[^ ]*' | grep -v "^${ROOTFS}" | sort -u)
  printf 'root:x:0:0:root:/root:/sbin/nologin\nnonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin\n' \
    >"${ROOTFS}/etc/passwd"
  printf 'root:x:0:\nnonroot:x:65532:\n' >"${ROOTFS}/etc/group"
  cp -L /etc/ssl/certs/ca-certificates.crt "${ROOTFS}/etc/ssl/certs/ca-certificates.crt"
  info "$(du -sh "${ROOTFS}" | cut -f1) ($(find "${ROOTFS}" -type f | wc -l) files)"
}

build_images() {
  log "render worker for the hub image"
  "${TOOLS_DIR}/build-tools.sh" render-worker >/dev/null
  rm -rf "${HUB_EXTRA}" && mkdir -p "${HUB_EXTRA}/opt/gitopshq/bin"
  cp "$(tool_bin_path render-worker)" "${HUB_EXTRA}/opt/gitopshq/bin/render-worker"
  log "jib:buildTar (hub and agent)"
  "${TOOLS_DIR}/mvn.sh" -B -ntp -q -Pimages -DskipTests -Dimages.rootfs="${ROOTFS}" \
    -Dimages.hubExtra="${HUB_EXTRA}" -pl api,agent -am package
}

# check <tarball> <expected user>: the config's user, and java -version inside
# the unpacked layers as that user.
check_image() {
  local tar=$1 dir config user
  [ -f "$tar" ] || die "${tar#"${REPO_ROOT}"/} is missing: run tools/images.sh"
  dir=$(mktemp -d)
  # shellcheck disable=SC2064  # $dir is fixed now
  trap "umount '$dir/root/proc' 2>/dev/null || true; rm -rf '$dir'; trap - RETURN" RETURN
  tar -xf "$tar" -C "$dir"
  config=$(python3 -c 'import json,sys; m=json.load(open(sys.argv[1]))[0]; print(m["Config"])' "$dir/manifest.json")
  user=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["config"].get("User",""))' "$dir/$config")
  [ "$user" = "65532:65532" ] || die "${tar##*/}: runs as '${user}', not 65532:65532"
  mkdir -p "$dir/root"
  python3 -c 'import json,sys; [print(l) for l in json.load(open(sys.argv[1]))[0]["Layers"]]' "$dir/manifest.json" |
    while read -r layer; do tar --warning=no-unknown-keyword -xzf "$dir/$layer" -C "$dir/root"; done
  # The dynamic loader finds the runtime's own libraries through /proc/self/exe, as in a pod.
  mkdir -p "$dir/root/proc"
  mount -t proc proc "$dir/root/proc" || die "cannot mount /proc for the image check (needs root)"
  if ! chroot --userspec=65532:65532 "$dir/root" /opt/java/bin/java -Xmx32m -version >"$dir/java.out" 2>&1; then
    cat "$dir/java.out" >&2
    die "${tar##*/}: java does not start in the image as 65532"
  fi
  info "${tar##*/}: user 65532:65532, $(head -1 "$dir/java.out"), $(du -h "$tar" | cut -f1)"
  if [[ "$tar" == *hub-image.tar ]]; then
    # The render worker runs in the image as 65532 and ends cleanly at the end of its input.
    if ! chroot --userspec=65532:65532 "$dir/root" /opt/gitopshq/bin/render-worker </dev/null >"$dir/worker.out" 2>&1; then
      cat "$dir/worker.out" >&2
      die "hub-image.tar: /opt/gitopshq/bin/render-worker does not run in the image as 65532"
    fi
    info "hub-image.tar: the render worker runs as 65532"
  fi
  if [[ "$tar" == *agent-image.tar ]]; then
    # The agent's own code loads in the image: with no configuration it names what is missing.
    if chroot --userspec=65532:65532 "$dir/root" /opt/java/bin/java -Xmx64m \
        -cp @/app/jib-classpath-file dev.gitopshq.agent.AgentMain >"$dir/agent.out" 2>&1 ||
       ! grep -q GITOPSHQ_HUB_ADDRESS "$dir/agent.out"; then
      cat "$dir/agent.out" >&2
      die "agent-image.tar: the agent did not start and refuse an empty configuration"
    fi
    info "agent-image.tar: the agent starts and asks for GITOPSHQ_HUB_ADDRESS"
  fi
}

main() {
  [ "$(id -u)" = 0 ] || warn "not root: the chroot checks need root"
  if [ "${1:-}" != "--check" ]; then
    make_rootfs
    build_images
  fi
  check_image "${REPO_ROOT}/api/target/hub-image.tar"
  check_image "${REPO_ROOT}/agent/target/agent-image.tar"
}

main "$@"
