# shellcheck shell=bash
# Shared helpers for the GitOpsHQ developer scripts. Source it, don't run it:
#
#   . "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"
#
# It defines REPO_ROOT, TOOLS_DIR, the tool cache location and the table of Go
# tools we build (opa, temporal), plus small logging helpers. Nothing here has
# side effects beyond setting variables and functions.

# shellcheck disable=SC2034  # the variables are used by the scripts sourcing this

# Guard against double sourcing (run.sh sources this and then calls scripts that
# source it again in their own process; that is fine, this only protects one
# shell from redefining readonly-ish state).
if [ -n "${__GITOPSHQ_COMMON_SH:-}" ]; then return 0; fi
__GITOPSHQ_COMMON_SH=1

TOOLS_DIR="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
REPO_ROOT="$(cd "${TOOLS_DIR}/.." && pwd)"

# The cache lives outside the checkout on purpose: a fresh clone on the same
# machine (CI does exactly that) reuses binaries that take minutes to build.
TOOLS_CACHE="${GITOPSHQ_TOOLS_CACHE:-${HOME:-/root}/.cache/gitopshq/tools}"

# Everything `make run` writes goes here (gitignored).
STATE_DIR="${GITOPSHQ_STATE_DIR:-${REPO_ROOT}/.gitopshq}"

# --- logging --------------------------------------------------------------
# Colour only when talking to a terminal; CI logs stay plain text.
if [ -t 1 ] && [ -z "${NO_COLOR:-}" ]; then
  __c_bold=$'\033[1m'; __c_red=$'\033[31m'; __c_yellow=$'\033[33m'; __c_off=$'\033[0m'
else
  __c_bold=''; __c_red=''; __c_yellow=''; __c_off=''
fi
log()  { printf '%s==>%s %s\n' "${__c_bold}" "${__c_off}" "$*"; }
info() { printf '    %s\n' "$*"; }
warn() { printf '%swarning:%s %s\n' "${__c_yellow}" "${__c_off}" "$*" >&2; }
die()  { printf '%serror:%s %s\n' "${__c_red}" "${__c_off}" "$*" >&2; exit 1; }

# --- Go tools ---------------------------------------------------------------
# name -> module directory under tools/, Go module path that carries the
# version, and the main package to build.
# render-worker (tools/render-worker, our own main.go on Helm's module) is the
# process the hub renders Helm charts in; DEFAULT_TOOLS has it, since the hub,
# its tests and make run need it.
# DEFAULT_TOOLS are what `build-tools.sh all` (make test, make run, make tools)
# builds: OPA, Temporal, and KUBE_TOOLS, the real Kubernetes control plane (one
# module, tools/kube) with kwok's simulated nodes (tools/kwok) that
# tools/dev/kube.sh runs; `build-tools.sh kube` builds only those. helm is only
# for the delivery benchmark (bench/run-delivery.sh builds it on demand), so
# nothing else pays its first build. FLUX_TOOLS are Flux's source-controller and
# kustomize-controller (tools/flux/<name>, one module each, as upstream builds
# them): only the demo cluster and the Flux tests run them, so they are built
# on demand (`build-tools.sh flux`, ~10 minutes on 2 cores the first time),
# never by `all`. argocd is Argo CD's multi-call binary (tools/argocd, v3.6.1:
# application-controller, repo-server, server, CLI in one; ARGOCD_BINARY_NAME
# picks the role), built on demand like Flux (`build-tools.sh argocd`, ~5
# minutes on 2 cores the first time), never by `all`. TEMPORAL_SERVER_TOOLS are the
# Temporal server itself (go.temporal.io/server's cmd/server) and its temporal-sql-tool
# (cmd/tools/sql), one module tools/temporal-server at the server version the CLI's dev
# server embeds: only the HA profile (tools/dev/run-ha.sh) runs them, so they are built on
# demand (`build-tools.sh temporal-server`), never by `all`.
KUBE_TOOLS=(kube-apiserver kube-controller-manager kube-scheduler kwok)
FLUX_TOOLS=(source-controller kustomize-controller)
TEMPORAL_SERVER_TOOLS=(temporal-server temporal-sql-tool)
DEFAULT_TOOLS=(opa temporal render-worker "${KUBE_TOOLS[@]}")
KNOWN_TOOLS=(opa temporal render-worker helm "${KUBE_TOOLS[@]}" "${FLUX_TOOLS[@]}" argocd "${TEMPORAL_SERVER_TOOLS[@]}")
tool_module() {
  case "$1" in
    opa)      echo github.com/open-policy-agent/opa ;;
    temporal) echo github.com/temporalio/cli ;;
    helm|render-worker) echo helm.sh/helm/v3 ;;
    kube-*)   echo k8s.io/kubernetes ;;
    kwok)     echo sigs.k8s.io/kwok ;;
    source-controller|kustomize-controller) echo "github.com/fluxcd/$1" ;;
    argocd)   echo github.com/argoproj/argo-cd/v3 ;;
    temporal-server|temporal-sql-tool) echo go.temporal.io/server ;;
    *) return 1 ;;
  esac
}
tool_package() {
  case "$1" in
    opa)      echo . ;;  # tools/opa/main.go: OPA's command line without the banned built-ins
    temporal) echo github.com/temporalio/cli/cmd/temporal ;;
    helm)     echo helm.sh/helm/v3/cmd/helm ;;
    render-worker) echo . ;;  # tools/render-worker/main.go
    kube-*)   echo "k8s.io/kubernetes/cmd/$1" ;;
    kwok)     echo sigs.k8s.io/kwok/cmd/kwok ;;
    source-controller|kustomize-controller) echo "github.com/fluxcd/$1" ;;
    argocd)   echo github.com/argoproj/argo-cd/v3/cmd ;;
    temporal-server)   echo go.temporal.io/server/cmd/server ;;
    temporal-sql-tool) echo go.temporal.io/server/cmd/tools/sql ;;
    *) return 1 ;;
  esac
}
tool_dir() {
  case "$1" in
    kube-*) echo "${TOOLS_DIR}/kube" ;;
    source-controller|kustomize-controller) echo "${TOOLS_DIR}/flux/$1" ;;
    temporal-sql-tool) echo "${TOOLS_DIR}/temporal-server" ;;
    *)      echo "${TOOLS_DIR}/$1" ;;
  esac
}

# What to pass to build-tools.sh to get this tool: its group where it has one.
tool_build_target() {
  case "$1" in
    kube-*|kwok) echo kube ;;
    source-controller|kustomize-controller) echo flux ;;
    temporal-server|temporal-sql-tool) echo temporal-server ;;
    *) echo "$1" ;;
  esac
}

is_known_tool() {
  local t
  for t in "${KNOWN_TOOLS[@]}"; do [ "$t" = "$1" ] && return 0; done
  return 1
}

# The pinned version, read straight from go.mod so that this works without a
# Go toolchain (bin-path.sh is called by the Makefile and by tests).
tool_version() {
  local name=$1 mod gomod v
  mod=$(tool_module "$name") || die "unknown tool '$name' (known: ${KNOWN_TOOLS[*]})"
  gomod="$(tool_dir "$name")/go.mod"
  [ -f "$gomod" ] || die "missing $gomod"
  # Matches both "require mod vX" and the indented form inside require ( ... ).
  v=$(awk -v m="$mod" '
        $1 == "require" && $2 == m { print $3; exit }
        $1 == m && $2 ~ /^v/        { print $2; exit }' "$gomod")
  [ -n "$v" ] || die "cannot find the version of $mod in $gomod"
  echo "$v"
}

# A suffix for tools built from code of ours as well as the pinned module: a change
# of that code gets a new cache directory, never the binary of the old code.
tool_revision() {
  case "$1" in
    opa) echo "-gitopshq1" ;;  # bump when tools/opa/main.go or banned-builtins.txt change
    # The render worker's own code changes often: its directory is named by a hash of its sources.
    render-worker) printf -- '-%s' "$(cat "${TOOLS_DIR}/render-worker/go.mod" "${TOOLS_DIR}/render-worker/go.sum" \
                     "${TOOLS_DIR}/render-worker/"*.go | sha256sum | cut -c1-12)" ;;
    *) echo "" ;;
  esac
}

# Files a tool ships besides its binary, copied from the module source into
# <cache dir>/<what>/ by the build: the Flux controllers' CustomResourceDefinitions
# (config/crd/bases: 6 source.toolkit.fluxcd.io kinds, 1 kustomize.toolkit.fluxcd.io),
# which dev/kube.sh applies before it starts them, and Argo CD's (manifests/crds:
# Application, ApplicationSet, AppProject; its kustomization.yaml is left out).
# Prints "<module dir> <cache subdir> [tree]"; and temporal-sql-tool's schema/postgresql/v12
# (the server's SQL schema, tree and all: the HA profile sets up its databases with it).
tool_extra_dir() {
  case "$1" in
    source-controller|kustomize-controller) echo "config/crd/bases crds" ;;
    argocd) echo "manifests/crds crds" ;;
    # The whole tree (third word "tree"), not just its *.yaml: the SQL schema of the server's
    # persistence and visibility stores, versioned, that temporal-sql-tool sets up.
    temporal-sql-tool) echo "schema/postgresql/v12 schema tree" ;;
    *) return 1 ;;
  esac
}

# Programs of the module source a tool runs beside its binary, copied next to it by the
# build (mode 755): Argo CD's repo-server runs git-verify-wrapper.sh (from its PATH) on
# every commit it generates manifests of, even with GPG off, and fails "permission denied"
# without it.
tool_extra_files() {
  case "$1" in
    argocd) echo "hack/git-verify-wrapper.sh" ;;
    *) echo "" ;;
  esac
}

# Where the binary of the pinned version lives (whether or not it is built).
tool_bin_path() {
  local name=$1 v
  v=$(tool_version "$name")
  echo "${TOOLS_CACHE}/${name}-${v}$(tool_revision "$name")/${name}"
}

# --- OPA locked to the hub ----------------------------------------------------
# OPA runs with token authentication and the authorization policy
# policies/system/authz, which admits one token: made anew on every start (OPA
# and the hub start together), so a token that reached a log, a terminal or an
# old hub.log.1 opens nothing once the stack restarts. It is kept in DIR/opa-token
# (mode 600) for a developer's curl, with its SHA-256 beside it as the data that
# policy reads. Sets OPA_TOKEN (for the hub's GITOPSHQ_OPA_TOKEN; never print it:
# start_proc masks it in the logs' command lines) and OPA_AUTH_ARGS (the flags and
# files to append to `opa run --server`).
opa_lockdown() {
  local dir=$1 sha
  mkdir -p "$dir"
  (umask 077 && od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$dir/opa-token.new")
  mv -f "$dir/opa-token.new" "$dir/opa-token"
  OPA_TOKEN=$(cat "$dir/opa-token")
  sha=$(printf '%s' "$OPA_TOKEN" | sha256sum | cut -d' ' -f1)
  (umask 077 && printf '{"gitopshq_opa": {"token_sha256": "%s"}}\n' "$sha" >"$dir/opa-token-sha256.json")
  OPA_AUTH_ARGS=(--authentication=token --authorization=basic
    "${REPO_ROOT}/policies/system/authz/authz.rego" "$dir/opa-token-sha256.json")
}

# --- The hub's render worker --------------------------------------------------
# The hub renders Helm charts in render-worker processes it starts (tools/render-worker;
# docs/operations.md). hub_render_env prints the NAME=VALUE line the hub is started with, for
# `mapfile -t render_env < <(hub_render_env)`: the worker binary of this checkout, unless
# GITOPSHQ_RENDER_WORKER_BIN is already set. The pool's other settings
# (GITOPSHQ_RENDER_WORKERS, _TIMEOUT_SECONDS, _MEMORY_MIB, _WORKER_RENDERS) pass through the
# environment as they are.
hub_render_env() {
  printf 'GITOPSHQ_RENDER_WORKER_BIN=%s\n' "${GITOPSHQ_RENDER_WORKER_BIN:-$(tool_bin_path render-worker)}"
}

# --- Java -----------------------------------------------------------------------
# java_setup: JAVA_HOME (exported) from tools/lib/java.sh, JAVA, and JVM_OPTS, the options every JVM
# the scripts start gets. JDK 24+ prints eight WARNING lines per JVM because Netty (inside gRPC and
# the Fabric8 mock server) uses sun.misc.Unsafe and loads a native library; both are allowed
# today, and saying so explicitly keeps the logs readable.
java_setup() {
  local major
  JAVA_HOME=$("${TOOLS_DIR}/lib/java.sh") || exit 1
  export JAVA_HOME
  JAVA="${JAVA_HOME}/bin/java"
  JVM_OPTS=()
  major=$(sed -n 's/^JAVA_VERSION="\([0-9]*\).*/\1/p' "${JAVA_HOME}/release" 2>/dev/null || true)
  if [ -n "$major" ] && [ "$major" -ge 24 ]; then
    JVM_OPTS=(--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED)
  fi
}

# --- Temporal dev server ----------------------------------------------------
# temporal_dev_options: prints the arguments of tools/dev/temporal-dev-options, one a line,
# for `mapfile -t opts < <(temporal_dev_options)`.
temporal_dev_options() {
  grep -v -e '^[[:space:]]*#' -e '^[[:space:]]*$' "${TOOLS_DIR}/dev/temporal-dev-options"
}
