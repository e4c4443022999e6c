#!/usr/bin/env bash
# The Kubernetes identity of a demo agent of `make run`, made the way the agent chart makes it in a
# real cluster: its RBAC, not the control plane's admin.
#
#   tools/dev/agent-identity.sh KUBE_DIR RELEASE OUT_DIR [helm template arguments...]
#
#   1. renders charts/gitopshq-agent with `helm template RELEASE --namespace gitopshq-system`
#      and the arguments given (e.g. --set rbac.profile=readwrite --set capabilities.directDeploy=true);
#   2. applies what it renders for RBAC (the ServiceAccount, ClusterRole, ClusterRoleBinding and
#      every Role and RoleBinding) to the control plane of KUBE_DIR (tools/dev/kube.sh) with the
#      admin kubeconfig, server-side, so a second run changes what the chart changed and nothing else;
#   3. mints a token for the ServiceAccount (TokenRequest, GITOPSHQ_AGENT_TOKEN_HOURS, default 720
#      hours; a fresh one each run) and writes OUT_DIR/kubeconfig (0600) with it;
#   4. writes OUT_DIR/agent.env: the GITOPSHQ_* settings of the chart's rendered Deployment that
#      say what the agent may do (GITOPSHQ_CAPABILITIES, credential sync, direct deploy,
#      diagnostics), NAME=VALUE a line, so the local agent announces exactly what the chart would.
#
# Prints one line: "agent identity system:serviceaccount:gitopshq-system:<name> kubeconfig=<path>".
# Needs helm (tools/build-tools.sh helm) and kubectl.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

readonly NAMESPACE=gitopshq-system
readonly CHART="${REPO_ROOT}/charts/gitopshq-agent"
readonly RBAC_KINDS='ServiceAccount|ClusterRole|ClusterRoleBinding|Role|RoleBinding'
# The chart's settings the local agent takes over (the rest describe the pod, or the hub
# connection, which run.sh sets for a process outside the cluster).
readonly AGENT_SETTINGS='GITOPSHQ_CAPABILITIES|GITOPSHQ_DIAGNOSTICS_ALLOWED_NAMESPACES|GITOPSHQ_CREDENTIAL_SYNC_MODE|GITOPSHQ_CREDENTIAL_SYNC_TARGETS|GITOPSHQ_DIRECT_DEPLOY_FIELD_MANAGER|GITOPSHQ_DIRECT_DEPLOY_DEFAULT_NAMESPACE'

[ $# -ge 3 ] || die "usage: tools/dev/agent-identity.sh KUBE_DIR RELEASE OUT_DIR [helm template arguments...]"
kube_dir=$(cd "$1" && pwd) release=$2 out=$3
shift 3
[ -s "${kube_dir}/run/url" ] || die "no control plane in ${kube_dir} (tools/dev/kube.sh start ${kube_dir})"
mkdir -p "$out"
kc=(kubectl --kubeconfig "${kube_dir}/admin.kubeconfig")
helm=$("${TOOLS_DIR}/bin-path.sh" helm)

rendered=$("$helm" template "$release" "$CHART" --namespace "$NAMESPACE" "$@")

# The documents whose top-level kind is an RBAC kind (helm separates documents with "---").
rbac=$(awk -v kinds="^kind: (${RBAC_KINDS})$" '
  function flush() { if (keep) printf "---\n%s", doc; doc = ""; keep = 0 }
  /^---$/ { flush(); next }
  { doc = doc $0 "\n"; if ($0 ~ kinds) keep = 1 }
  END { flush() }' <<<"$rendered")
[ -n "$rbac" ] || die "the agent chart rendered no RBAC for release ${release}"
sa=$(awk '/^kind: ServiceAccount$/ { f = 1 } f && /^  name: / { print $2; exit }' <<<"$rbac")
[ -n "$sa" ] || die "the agent chart rendered no ServiceAccount for release ${release} (serviceAccount.create=false?)"

"${kc[@]}" create namespace "$NAMESPACE" --dry-run=client -o yaml |
  "${kc[@]}" apply --server-side --field-manager gitopshq-demo -f - >/dev/null
"${kc[@]}" apply --server-side --force-conflicts --field-manager gitopshq-demo-agent-chart -f - >/dev/null <<<"$rbac"

token=$("${kc[@]}" -n "$NAMESPACE" create token "$sa" --duration "${GITOPSHQ_AGENT_TOKEN_HOURS:-720}h")
(
  umask 077
  cat >"${out}/kubeconfig.tmp" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gitopshq-dev
  cluster:
    server: $(cat "${kube_dir}/run/url")
    certificate-authority: ${kube_dir}/pki/ca.crt
users:
- name: ${sa}
  user:
    token: ${token}
contexts:
- name: ${sa}
  context: {cluster: gitopshq-dev, user: ${sa}, namespace: ${NAMESPACE}}
current-context: ${sa}
EOF
)
mv -f "${out}/kubeconfig.tmp" "${out}/kubeconfig"

# "- name: GITOPSHQ_X" followed by 'value: "…"' in the Deployment's env (helm's quote: a Go string).
awk -v names="^(${AGENT_SETTINGS})$" '
  $1 == "-" && $2 == "name:" && $3 ~ names { name = $3; next }
  name != "" && $1 == "value:" { v = $0; sub(/^[^:]*: */, "", v); gsub(/^"|"$/, "", v); print name "=" v }
  { name = "" }' <<<"$rendered" >"${out}/agent.env"
grep -q '^GITOPSHQ_CAPABILITIES=.' "${out}/agent.env" ||
  die "the chart's Deployment for release ${release} sets no GITOPSHQ_CAPABILITIES"

echo "agent identity system:serviceaccount:${NAMESPACE}:${sa} kubeconfig=${out}/kubeconfig"
