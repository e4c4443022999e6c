#!/usr/bin/env bash
# Builds the Go tools GitOpsHQ runs for real (OPA, the Temporal CLI / dev
# server, the hub's Helm render worker, ...) from the pinned Go modules in tools/.
#
#   tools/build-tools.sh [opa|temporal|render-worker|helm|kube|flux|argocd|temporal-server|<tool>|all]     (default: all)
#
# `all` is opa, temporal, render-worker (tools/render-worker: the process the
# hub renders Helm charts in, Helm's module v3.21.0 with our main.go) and the
# kube tools. `flux` is Flux's source-controller
# and kustomize-controller (tools/flux/<name>/go.mod, v1.9.6) with their CRDs,
# which dev/kube.sh runs beside its control plane (`--with-flux`); only built when
# asked for by name: make run asks once the hub is up, the Flux tests' callers
# before they run. `argocd` is Argo CD v3.6.1's one multi-call binary
# (tools/argocd/go.mod) with its CRDs (manifests/crds), for dev/kube.sh's
# argocd-start; built, like flux, only when asked for by name. `temporal-server`
# is the Temporal server (go.temporal.io/server v1.29.1's temporal-server and
# temporal-sql-tool, tools/temporal-server/go.mod) that the HA profile
# (tools/dev/run-ha.sh, make run-ha) runs on PostgreSQL; also only by name. helm (the Helm CLI
# at the version the render worker is built from, tools/helm) is built only when
# asked for by name: the delivery
# benchmark compares against it and builds it on demand. `kube` is a real
# Kubernetes control plane for the demo cluster and the end-to-end tests:
# kube-apiserver, kube-controller-manager and kube-scheduler from
# k8s.io/kubernetes (tools/kube) and kwok's simulated nodes (tools/kwok).
#
# Binaries are cached per version outside the checkout, in
#   ${GITOPSHQ_TOOLS_CACHE:-$HOME/.cache/gitopshq/tools}/<name>-<version>/<name>
# so a fresh clone on the same machine does not rebuild them. A binary is only
# built when it is missing; bump the version in tools/<name>/go.mod to get a
# new one (the old directory can simply be deleted).
#
# Env knobs:
#   GITOPSHQ_TOOLS_CACHE   cache root (see above)
#   GITOPSHQ_TOOLS_VERBOSE=1   show every package `go build -v` prints
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/lib/common.sh"

# Print a progress line every this many compiled packages: enough to show the
# build is alive, far fewer than the ~1,300 lines of `go build -v` for temporal.
PROGRESS_EVERY=100

# Extra linker flags per tool. -s -w drops debug info (the binaries are tools,
# not something we debug) and the Temporal CLI only knows its own version when
# it is stamped in, exactly as its release build (.goreleaser.yml) does.
tool_ldflags() {
  case "$1" in
    temporal) echo "-s -w -X github.com/temporalio/cli/temporalcli.Version=${2#v}" ;;
    # The version as Helm's release build stamps it (`helm version`), but NOT
    # its k8sVersionMajor/Minor stamps: the render worker is built with plain
    # -s -w, so both keep Helm's default .Capabilities.KubeVersion (v1.20) and
    # render the same manifests.
    helm)     echo "-s -w -X helm.sh/helm/v3/internal/version.version=$2 -X helm.sh/helm/v3/internal/version.gitTreeState=clean" ;;
    # Kubernetes' own build stamps its version into component-base and client-go;
    # without it the server says v0.0.0-master+$Format:%H$ and kubectl cannot
    # parse it.
    kube-*)   local v=${2#v} p flags="-s -w"
              for p in k8s.io/component-base/version k8s.io/client-go/pkg/version; do
                flags+=" -X $p.gitVersion=$2 -X $p.gitMajor=${v%%.*} -X $p.gitMinor=$(echo "$v" | cut -d. -f2)"
                flags+=" -X $p.gitTreeState=clean -X $p.buildDate=1970-01-01T00:00:00Z"
              done
              echo "$flags" ;;
    # Argo CD's own release build stamps its version (common.version, shown as
    # v<version>+<commit>); the module zip has no commit, so `argocd version`
    # says v3.6.1+unknown, as a source build without git metadata does.
    argocd)   echo "-s -w -X github.com/argoproj/argo-cd/v3/common.version=${2#v}" ;;
    *)        echo "-s -w" ;;
  esac
}

# Fails with one clear line when Go is missing or older than the go directive
# of the module (with GOTOOLCHAIN=local Go would refuse anyway, with a less
# helpful message; with GOTOOLCHAIN=auto it downloads the right toolchain from
# the Go module proxy, which is fine). A module that pins a `toolchain` line
# (tools/argocd: Argo CD v3.6.1 declares go 1.27.0) is built with that toolchain
# when the local Go is older, even under GOTOOLCHAIN=local: Go fetches it once
# from the module proxy into its module cache.
require_go() {
  local dir=$1 need have toolchain pinned
  command -v go >/dev/null 2>&1 ||
    die "Go is not installed (needed once to build opa/temporal); get Go >= 1.26 from https://go.dev/dl/ (Debian 12's 'apt-get install golang-go' is too old unless from bookworm-backports)"
  need=$(awk '$1 == "go" { print $2; exit }' "$dir/go.mod")
  have=$(go env GOVERSION 2>/dev/null); have=${have#go}
  toolchain=$(go env GOTOOLCHAIN 2>/dev/null || echo auto)
  pinned=$(awk '$1 == "toolchain" { print $2; exit }' "$dir/go.mod")
  if [ -n "$need" ] && [ "$(printf '%s\n%s\n' "$need" "$have" | sort -V | head -n1)" != "$need" ]; then
    if [ -n "$pinned" ]; then
      info "Go $have is older than $need: building with $pinned (pinned in $dir/go.mod; fetched once via the module proxy)"
      export GOTOOLCHAIN=$pinned
      return 0
    fi
    case "$toolchain" in
      local*) die "Go $have is too old for $dir/go.mod (needs >= $need); install a newer Go from https://go.dev/dl/ or run with GOTOOLCHAIN=auto" ;;
      *) warn "Go $have is older than $need; Go will fetch toolchain $need via the module proxy (GOTOOLCHAIN=$toolchain)" ;;
    esac
  fi
}

# Reads `go build -v` output on stdin. Package import paths (one per line) are
# counted and summarised every PROGRESS_EVERY lines; anything else (compiler
# errors, "go: downloading ...") is shown as is. Everything goes to $1 too.
progress_filter() {
  local logfile=$1 name=$2 total=$3
  awk -v every="$PROGRESS_EVERY" -v name="$name" -v total="$total" \
      -v verbose="${GITOPSHQ_TOOLS_VERBOSE:-0}" -v logfile="$logfile" '
    { print > logfile; fflush(logfile) }
    /^go: downloading / {
      d++; if (d % 25 == 1) { printf "    %s: downloading modules (%d so far, e.g. %s)\n", name, d, $3; fflush() }
      next }
    /^[A-Za-z0-9_.~+-]+(\/[A-Za-z0-9_.~+-]+)*$/ {
      n++
      if (verbose == 1) { print "    " $0; fflush(); next }
      if (n % every == 0) { printf "    %s: %d of at most %d packages compiled (%s)\n", name, n, total, $0; fflush() }
      next }
    { print; fflush() }
    END { if (n > 0) printf "    %s: %d packages compiled\n", name, n }'
}

# Copies what tool_extra_dir and tool_extra_files name out of the module source (in Go's module
# cache, where the build just found it) into the cache directory, before the
# binary is renamed into place: a cached binary always has them beside it.
copy_extra() {
  local name=$1 dir=$2 cachedir=$3 spec src dest moddir f
  spec=$(tool_extra_dir "$name") || return 0
  moddir=$(cd "$dir" && go list -m -f '{{.Dir}}' "$(tool_module "$name")")
  for f in $(tool_extra_files "$name"); do
    [ -f "$moddir/$f" ] || die "$name: $moddir/$f is missing from the module source"
    install -m 755 "$moddir/$f" "$cachedir/$(basename "$f")"
    info "$name: $f copied to $cachedir"
  done
  local from to how
  read -r from to how <<<"$spec"
  src="$moddir/$from"
  dest="$cachedir/$to"
  [ -d "$src" ] || die "$name: $src is missing from the module source"
  rm -rf "$dest" && mkdir -p "$dest"
  if [ "$how" = tree ]; then
    cp -R "$src"/. "$dest"/ && chmod -R u+w "$dest"
    info "$name: $(find "$dest" -type f | wc -l) files of $from copied to $dest"
    return 0
  fi
  cp "$src"/*.yaml "$dest"/ && rm -f "$dest/kustomization.yaml" && chmod -R u+w "$dest"
  info "$name: $(find "$dest" -name '*.yaml' | wc -l) files of $from copied to $dest"
}

build_tool() {
  local name=$1 dir version bin cachedir tmp logfile lockfd pkg total start secs
  dir=$(tool_dir "$name")
  version=$(tool_version "$name")
  bin=$(tool_bin_path "$name")
  cachedir=$(dirname "$bin")

  if [ -x "$bin" ]; then
    log "$name $version: cached"
    info "$bin"
    return 0
  fi

  require_go "$dir"
  mkdir -p "$cachedir"
  # Two builds of the same tool at once (make test and make run in two
  # terminals) would waste minutes and race on the final rename: serialise.
  exec {lockfd}>"$cachedir/.lock"
  if ! flock -n "$lockfd"; then
    log "$name $version: another build is running, waiting for it"
    flock "$lockfd"
  fi
  if [ -x "$bin" ]; then
    flock -u "$lockfd"; exec {lockfd}>&-
    log "$name $version: cached (built by the other process)"
    info "$bin"
    return 0
  fi

  pkg=$(tool_package "$name")
  logfile="$cachedir/build.log"
  total=$(cd "$dir" && go list -deps "$pkg" 2>/dev/null | wc -l) || total=0
  log "building $name $version from ${dir#"${REPO_ROOT}"/}/go.mod ($pkg)"
  info "first build only: this can take a few minutes (~$total packages); full log: $logfile"
  start=$(date +%s)
  # Build into a temporary name and rename at the end, so an interrupted
  # build never leaves a half-written binary that looks cached.
  tmp="$cachedir/.$name.tmp.$$"
  # shellcheck disable=SC2064  # expand now: the trap must remove this file
  trap "rm -f '$tmp'" EXIT
  # nice: a first build takes minutes of every core; whatever else runs (a test
  # suite, the dev stack) should not stall behind it.
  if ! (cd "$dir" && nice -n 10 go build -v -trimpath -buildvcs=false \
          -ldflags "$(tool_ldflags "$name" "$version")" -o "$tmp" "$pkg") 2>&1 |
       progress_filter "$logfile" "$name" "$total"; then
    echo "---- last lines of $logfile ----" >&2
    tail -n 30 "$logfile" >&2
    die "building $name $version failed (see $logfile)"
  fi
  copy_extra "$name" "$dir" "$cachedir"
  mv -f "$tmp" "$bin"
  trap - EXIT
  flock -u "$lockfd"; exec {lockfd}>&-
  secs=$(( $(date +%s) - start ))
  log "$name $version built in ${secs}s"
  info "$bin"
}

main() {
  local what=${1:-all} t
# before they run. `argocd` is Argo CD v3.6.1's one multi-call binary
# (tools/argocd/go.mod) with its CRDs (manifests/crds), for dev/kube.sh's
# argocd-start; built, like flux, only when asked for by name. helm (the Helm CLI
# at the version the render worker is built from, tools/helm) is built only when
# asked for by name: the delivery
  case "$what" in
    all) for t in "${DEFAULT_TOOLS[@]}"; do build_tool "$t"; done ;;
    kube) for t in "${KUBE_TOOLS[@]}"; do build_tool "$t"; done ;;
    flux) for t in "${FLUX_TOOLS[@]}"; do build_tool "$t"; done ;;
    # The Temporal server and its SQL schema tool come together: the HA profile needs both.
    temporal-server) for t in "${TEMPORAL_SERVER_TOOLS[@]}"; do build_tool "$t"; done ;;
    -h|--help) sed -n '2,/^set -euo/{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}" ;;
    *) is_known_tool "$what" || die "unknown tool '$what'; usage: tools/build-tools.sh [opa|temporal|render-worker|helm|kube|flux|argocd|temporal-server|all]"
       build_tool "$what" ;;
  esac
}

main "$@"
