# shellcheck shell=bash
# The demo clusters of `make run` and what they show: tools/dev/run.sh sources this after its own
# helpers (api, api_ok, api_expect, start_proc, the configuration) and calls the functions below.
#
# Two agents, each a cluster of the demo organization, both on the demo control plane (one
# kube-apiserver: a second one costs ~0.5 GB and ~10 s more for nothing a second set of namespaces
# does not show as well; docs/getting-started.md):
#
#   agent         cluster "demo": every capability the agent has; with the demo's Flux
#                 (GITOPSHQ_DEMO_FLUX, on by default) also adapter.wire, and project demo's dev
#                 delivered by Flux, whose objects the hub wires (namespaces demo and payments hold
#                 the seeded workloads; demo-dev what Flux applies)
#   agent-direct  cluster "demo-direct": direct.deploy and credential.sync, delivery mode direct
#                 (project shop, environment dev, namespace shop-dev)
#
# On the real control plane each agent's kubeconfig is a ServiceAccount token bound to the RBAC the
# agent chart renders for it (tools/dev/agent-identity.sh), never the admin's: whatever the demo
# does, the chart's RBAC allows.

# shellcheck disable=SC2034  # read by run.sh

DEMO_AGENTS=()             # proc names, in start order
declare -A AG_CLUSTER=()   # proc -> cluster name
declare -A AG_JSON=()      # proc -> the cluster's POST /api/v2/clusters body
declare -A AG_DIR=()       # proc -> state directory (identity.json, kubeconfig, agent.env)
declare -A AG_KUBECONFIG=() # proc -> the kubeconfig it runs with (AG_DIR/kubeconfig, or one's own)
declare -A AG_HELM=()      # proc -> "release|helm --set arguments" of its chart identity
declare -A AG_ID=()        # proc -> the cluster's id on the hub
declare -A AG_REREG=()     # proc -> 1 once it was registered again this run
REG_TOKEN=''

# The capabilities of an agent that runs with a kubeconfig the demo did not make (KUBECONFIG or
# the Fabric8 mock): the chart's RBAC is not there to prove anything.
readonly FOREIGN_KUBE_CAPABILITIES="observe,diagnostics.read,argocd.read,argocd.write,kubernetes.restart,kubernetes.scale,token.rotate"

# The chart's values of each demo agent: readwrite with every capability for demo; direct deploy
# and credential sync limited to shop-dev (a namespaced Role) for demo-direct.
DEMO_AGENT_HELM="gitopshq-agent|--set rbac.profile=readwrite --set capabilities.observe=true --set capabilities.diagnosticsRead=true --set capabilities.argocdRead=true --set capabilities.argocdWrite=true --set capabilities.directDeploy=true --set capabilities.kubernetesRestart=true --set capabilities.kubernetesScale=true --set capabilities.credentialSync=true --set capabilities.tokenRotate=true"
# With the demo's Flux, the demo agent also wires it (the hub has it make the Flux objects).
if [ "${GITOPSHQ_DEMO_FLUX:-on}" != off ]; then
  DEMO_AGENT_HELM+=" --set capabilities.adapterWire=true"
fi
readonly DEMO_AGENT_HELM
readonly DIRECT_AGENT_HELM="demo-direct|--set rbac.profile=readwrite --set capabilities.argocdRead=false --set capabilities.directDeploy=true --set capabilities.credentialSync=true --set credentialSync.targets={shop-dev} --set diagnostics.allowedNamespaces={shop-dev}"

readonly SHOP_NAMESPACE=shop-dev
readonly SHOP_RELEASE_TIMEOUT=${GITOPSHQ_DEMO_RELEASE_TIMEOUT:-240}

# define_agent <proc> <cluster> <cluster JSON> <state dir> <release|helm arguments>
define_agent() {
  DEMO_AGENTS+=("$1")
  AG_CLUSTER[$1]=$2 AG_JSON[$1]=$3 AG_DIR[$1]=$4 AG_HELM[$1]=$5 AG_REREG[$1]=0 AG_ID[$1]=''
  AG_KUBECONFIG[$1]="$4/kubeconfig"
  mkdir -p "$4"
}

is_agent() { [ -n "${AG_CLUSTER[$1]:-}" ]; }

# The chart's identity of every agent on the demo control plane (KUBE_DIR, already seeded: the
# namespaced Roles need their namespaces).
make_agent_identities() {
  local p release line
  local -a args
  for p in "${DEMO_AGENTS[@]}"; do
    release=${AG_HELM[$p]%%|*}
    read -r -a args <<<"${AG_HELM[$p]#*|}"
    line=$("${TOOLS_DIR}/dev/agent-identity.sh" "${KUBE_DIR}" "$release" "${AG_DIR[$p]}" "${args[@]}" \
      --set hub.address="${HOST}:${HUB_GRPC_PORT}" --set agent.clusterName="${AG_CLUSTER[$p]}") ||
      die "could not make the chart identity of the agent of '${AG_CLUSTER[$p]}' (tools/dev/agent-identity.sh)"
    info "${AG_CLUSTER[$p]}: ${line#agent identity }, $(sed -n 's/^GITOPSHQ_CAPABILITIES=//p' "${AG_DIR[$p]}/agent.env")"
  done
}

# An agent on a cluster the demo did not set up: that kubeconfig where it is (its relative paths
# stay valid, its credentials are not copied), the capabilities it had before.
foreign_agent_identity() { # proc kubeconfig
  AG_KUBECONFIG[$1]=$2
  printf 'GITOPSHQ_CAPABILITIES=%s\n' "${FOREIGN_KUBE_CAPABILITIES}" >"${AG_DIR[$1]}/agent.env"
}

find_cluster() { # proc -> AG_ID[proc] ('' when the hub has no such cluster)
  api GET /api/v2/clusters
  api_expect 200 "listing clusters (GET /api/v2/clusters)"
  AG_ID[$1]=$(jq -r --arg n "${AG_CLUSTER[$1]}" 'first(.items[]? | select(.name == $n) | .id) // empty' <<<"${API_BODY}")
}

# Sets REG_TOKEN to a fresh registration token for the agent's cluster, creating the cluster when
# it does not exist.
issue_registration_token() { # proc
  local p=$1 name=${AG_CLUSTER[$1]} token=''
  if [ -z "${AG_ID[$p]}" ]; then
    api POST /api/v2/clusters "${AG_JSON[$p]}"
    if [ "${API_STATUS}" = 409 ]; then
      find_cluster "$p"   # created meanwhile (another client): take the existing one
    else
      api_expect 201 "registering cluster '${name}' (POST /api/v2/clusters)"
      AG_ID[$p]=$(jq -r '.cluster.id // empty' <<<"${API_BODY}")
      token=$(jq -r '.registrationToken // empty' <<<"${API_BODY}")
      info "registered cluster '${name}' (${AG_ID[$p]})"
    fi
  fi
  if [ -z "${token}" ]; then
    [ -n "${AG_ID[$p]}" ] || die "could not find or create cluster '${name}'"
    api POST "/api/v2/clusters/${AG_ID[$p]}/join-token"
    api_expect 201 "issuing a join token (POST /api/v2/clusters/${AG_ID[$p]}/join-token)"
    token=$(jq -r '.registrationToken // empty' <<<"${API_BODY}")
    info "issued a new registration token for '${name}'"
  fi
  [[ "${token}" == ghqa_reg_* ]] || die "the hub's answer has no registration token: ${API_BODY:0:300}"
  REG_TOKEN=${token}
}

start_agent() { # proc [registration token]
  local p=$1 reg_token=${2:-} json=${AG_JSON[$1]}
  local -a java_opts=() token_env=(-u GITOPSHQ_REGISTRATION_TOKEN) settings
  # shellcheck disable=SC2206
  [ -z "${GITOPSHQ_AGENT_JAVA_OPTS:-}" ] || java_opts=(${GITOPSHQ_AGENT_JAVA_OPTS})
  [ -z "$reg_token" ] || token_env=(GITOPSHQ_REGISTRATION_TOKEN="$reg_token")
  mapfile -t settings <"${AG_DIR[$p]}/agent.env"
  start_proc "$p" env "${token_env[@]}" \
    GITOPSHQ_HUB_ADDRESS="${HOST}:${HUB_GRPC_PORT}" \
    GITOPSHQ_HUB_CA_FILE="${TLS_DIR}/ca.crt" \
    GITOPSHQ_IDENTITY_STORE_MODE=file \
    GITOPSHQ_AGENT_TOKEN_PATH="${AG_DIR[$p]}/identity.json" \
    GITOPSHQ_CLUSTER_NAME="${AG_CLUSTER[$p]}" \
    GITOPSHQ_DISPLAY_NAME="$(jq -r .displayName <<<"$json")" \
    GITOPSHQ_PROVIDER="$(jq -r .provider <<<"$json")" GITOPSHQ_REGION="$(jq -r .region <<<"$json")" \
    GITOPSHQ_ENVIRONMENT="$(jq -r .environment <<<"$json")" \
    GITOPSHQ_STATUS_INTERVAL_SECONDS=10 \
    "${settings[@]}" \
    KUBECONFIG="${AG_KUBECONFIG[$p]}" \
    "${JAVA}" "${JVM_OPTS[@]}" -Xmx128m "${java_opts[@]}" -jar "${AGENT_JAR}"
}

# Registers an agent from scratch: fresh token, no identity file.
register_and_start_agent() { # proc
  REG_TOKEN=''
  issue_registration_token "$1"
  rm -f "${AG_DIR[$1]}/identity.json"
  start_agent "$1" "${REG_TOKEN}"
}

start_demo_agents() {
  local p
  log "demo clusters and agents"
  read_api_token
  for p in "${DEMO_AGENTS[@]}"; do
    find_cluster "$p"
    if [ -n "${AG_ID[$p]}" ] && [ -s "${AG_DIR[$p]}/identity.json" ]; then
      info "cluster '${AG_CLUSTER[$p]}' exists and its agent has an identity: reconnecting"
      start_agent "$p"
    else
      [ ! -e "${AG_DIR[$p]}/identity.json" ] ||
        info "removing the stale agent identity (no cluster '${AG_CLUSTER[$p]}' on the hub)"
      register_and_start_agent "$p"
    fi
  done
}

# The agent's identity was refused (exit code 3): the database no longer knows it. Register again,
# once per run and agent; a second refusal is a real problem.
reregister_agent() { # proc
  [ "${AG_REREG[$1]}" = 0 ] || return 1
  AG_REREG[$1]=1
  warn "the hub rejected the identity of the agent of '${AG_CLUSTER[$1]}' (agent exit code ${AGENT_EXIT_IDENTITY_REJECTED}); registering it again"
  find_cluster "$1"
  register_and_start_agent "$1"
}

cluster_status() { # proc
  api GET "/api/v2/clusters/${AG_ID[$1]}"
  [ "${API_STATUS}" = 200 ] || { echo "HTTP ${API_STATUS}"; return 0; }
  jq -r '(.status // .cluster.status // "unknown")' <<<"${API_BODY}" 2>/dev/null || echo unknown
}

# Until every demo cluster is Connected (an agent whose identity is refused is registered again).
wait_connected() {
  local deadline=$(( SECONDS + CONNECT_TIMEOUT )) p status
  local -a waiting=("${DEMO_AGENTS[@]}")
  while [ ${#waiting[@]} -gt 0 ]; do
    local -a still=()
    for p in "${waiting[@]}"; do
      status=$(cluster_status "$p")
      [ "$status" = Connected ] && continue
      still+=("$p")
      check_others_alive "$p"
      if ! proc_alive "$p"; then
        proc_exit_code "$p"
        if [ "${PROC_RC}" = "${AGENT_EXIT_IDENTITY_REJECTED}" ] && reregister_agent "$p"; then
          deadline=$(( SECONDS + CONNECT_TIMEOUT ))
          continue
        fi
        echo "error: the agent of '${AG_CLUSTER[$p]}' exited (code ${PROC_RC}) before its cluster was Connected" >&2
        show_log_tail "$p"
        exit 1
      fi
      if [ "$SECONDS" -ge "$deadline" ]; then
        echo "error: cluster '${AG_CLUSTER[$p]}' was not Connected within ${CONNECT_TIMEOUT} s (last status: ${status}); see ${PROC_LOG[$p]#"${REPO_ROOT}"/} and ${PROC_LOG[hub]#"${REPO_ROOT}"/}" >&2
        show_log_tail "$p"
        exit 1
      fi
    done
    waiting=("${still[@]}")
    [ ${#waiting[@]} -eq 0 ] || sleep 1
  done
  log "demo clusters Connected after ${SECONDS} s: $(for p in "${DEMO_AGENTS[@]}"; do printf '%s ' "${AG_CLUSTER[$p]}"; done)"
}

# POST a JSON body; 201 or 409 (it exists) are both fine.
ensure() { # path body what
  api POST "$1" "$2"
  api_ok 201 409 "$3"
}

project_id() { # name -> stdout
  api GET /api/v2/projects
  api_expect 200 "listing projects"
  jq -r --arg n "$1" 'first(.items[]? | select(.name == $n) | .id) // empty' <<<"${API_BODY}"
}

# A demo project delivering chart demo-web for tenant demo to the demo cluster in environment dev
# (of dev -> staging -> production), so the delivery pipeline has something to show: a release of
# it deploys to deploy/dev without approval. Idempotent: existing resources are kept (409 is fine).
seed_demo_project() {
  local chart="${DATA_DIR}/demo-web-0.1.0.tgz" env out
  tar -C "${REPO_ROOT}/tools/dev/demo-chart" --owner=0 --group=0 --numeric-owner -czf "${chart}" demo-web
  for env in dev staging production; do
    ensure /api/v2/environments "{\"name\":\"${env}\",\"description\":\"make run demo\"}" "creating environment ${env}"
  done
  ensure /api/v2/tenants '{"name":"demo","displayName":"Demo tenant"}' "creating tenant demo"
  out=$(curl -sS -m 30 -X POST -H "Authorization: Bearer ${API_TOKEN}" -H 'Content-Type: application/gzip' \
    --data-binary "@${chart}" -w $'\n%{http_code}' "${HUB_URL}/api/v2/charts" 2>&1) || true
  API_STATUS=${out##*$'\n'} API_BODY=${out%$'\n'*}
  api_ok 200 201 "uploading chart demo-web"
  ensure /api/v2/projects '{"name":"demo","description":"make run demo project"}' "creating project demo"
  DEMO_PROJECT_ID=$(project_id demo)
  api GET /api/v2/projects
  DEMO_CLONE_URL=$(jq -r 'first(.items[]? | select(.name == "demo") | .repository.cloneUrl) // empty' <<<"${API_BODY}")
  # With the demo's Flux, dev is delivered by Flux: the hub has the agent make its GitRepository and
  # Kustomization at the first release, and a deployment ends when Flux runs it.
  local mode=flux
  [ "${GITOPSHQ_DEMO_FLUX:-on}" != off ] || mode=argocd
  api PUT "/api/v2/projects/${DEMO_PROJECT_ID}/environments/dev" "{\"clusters\":[{\"cluster\":\"demo\",\"deliveryMode\":\"${mode}\"}]}"
  api_ok 200 "binding environment dev of project demo to cluster demo (${mode})"
  api PUT "/api/v2/projects/${DEMO_PROJECT_ID}/tenants/demo"
  api_ok 200 "adding tenant demo to project demo"
  ensure "/api/v2/projects/${DEMO_PROJECT_ID}/workloads" \
    '{"name":"web","chart":"demo-web","version":"0.1.0","values":{"replicaCount":2}}' "creating workload web"
  info "demo project 'demo' (${DEMO_PROJECT_ID}): main renders rendered/dev/demo/demo/web/"
}

# Once the demo's Flux is ready: release #1 of project demo to dev, unless the project has a release.
# The deployment commit makes the hub wire the cluster (GitRepository, Kustomization, the tenant's
# ServiceAccount and RBAC, the deploy token's Secret); Flux applies it into demo-dev and the
# deployment ends when Flux reports it applied and healthy. Not waited for: the stack is up.
seed_flux_release() {
  [ -n "${DEMO_PROJECT_ID:-}" ] || return 0
  api GET "/api/v2/projects/${DEMO_PROJECT_ID}/releases"
  [ "${API_STATUS}" = 200 ] || { warn "could not list the releases of project demo (HTTP ${API_STATUS})"; return 0; }
  [ "$(jq '.items | length' <<<"${API_BODY}")" = 0 ] || return 0
  api POST "/api/v2/projects/${DEMO_PROJECT_ID}/releases" \
    '{"description":"make run demo: the first release, delivered by Flux","environment":"dev"}'
  if [ "${API_STATUS}" = 202 ]; then
    info "project demo: release #1 goes to dev; Flux applies it into namespace demo-dev (Bindings tab of cluster demo)"
  else
    warn "could not release project demo (HTTP ${API_STATUS}): ${API_BODY:0:300}"
  fi
}

# A deployment's final status, waiting at most SHOP_RELEASE_TIMEOUT seconds; "" on timeout.
await_deployment() { # project id, deployment id
  local deadline=$(( SECONDS + SHOP_RELEASE_TIMEOUT )) status=''
  while [ "$SECONDS" -lt "$deadline" ]; do
    api GET "/api/v2/projects/$1/deployments/$2"
    status=$(jq -r '.status // empty' <<<"${API_BODY}" 2>/dev/null || true)
    case "$status" in deployed|failed|degraded|rejected|frozen|expired|cancelled) echo "$status"; return 0 ;; esac
    sleep 2
  done
}

# The second demo cluster in delivery mode direct, with real data in its tabs on first start:
# project shop (chart demo-web, tenant demo) delivers environment dev to cluster demo-direct in
# namespace shop-dev, where the agent applies it itself; release #1 is direct-deployed (the Direct
# deploy and Bindings tabs); Deployment web is then scaled by hand and a drift check finds it
# (the Drift tab); the credential shop-registry is synced into shop-dev (the Credentials tab).
# Idempotent: each step is skipped when its result exists (a second `make run` seeds nothing new).
seed_direct_demo() {
  local shop direct=${AG_ID[agent-direct]} cred n dep status check
  log "seeding the direct-mode demo (project shop on cluster demo-direct)"
  ensure /api/v2/projects '{"name":"shop","description":"make run demo: delivered by the agent of demo-direct itself (direct mode)"}' \
    "creating project shop"
  shop=$(project_id shop)
  SHOP_PROJECT_ID=$shop
  api PUT "/api/v2/projects/${shop}/environments/dev" \
    '{"namespacePattern":"{{ .project }}-{{ .environment }}","deliveryMode":"direct","clusters":[{"cluster":"demo-direct"}]}'
  api_ok 200 "binding environment dev of project shop to cluster demo-direct in direct mode"
  api PUT "/api/v2/projects/${shop}/tenants/demo"
  api_ok 200 "adding tenant demo to project shop"
  ensure "/api/v2/projects/${shop}/workloads" \
    '{"name":"web","chart":"demo-web","version":"0.1.0","values":{"replicaCount":2}}' "creating workload web of project shop"

  # A registry pull secret (demo:demo for registry.example.com), synced into shop-dev.
  ensure /api/v2/credentials "$(jq -nc '{name: "shop-registry", type: "dockerconfigjson",
      description: "make run demo: pull secret of shop-dev",
      data: {".dockerconfigjson": ({auths: {"registry.example.com": {auth: ("demo:demo" | @base64)}}} | tojson)}}')" \
    "creating credential shop-registry"
  api GET /api/v2/credentials
  api_expect 200 "listing credentials"
  cred=$(jq -r 'first(.items[]? | select(.name == "shop-registry") | .id) // empty' <<<"${API_BODY}")
  api PUT "/api/v2/credentials/${cred}/assignments" \
    "{\"assignments\":[{\"clusterId\":\"${direct}\",\"namespaces\":[\"${SHOP_NAMESPACE}\"]}]}"
  api_ok 200 "assigning credential shop-registry to demo-direct/${SHOP_NAMESPACE}"

  # Release #1, deployed to dev: the agent of demo-direct applies it and waits for its rollout.
  api GET "/api/v2/projects/${shop}/releases?limit=1"
  api_expect 200 "listing the releases of project shop"
  n=$(jq -r '.items[0].number // empty' <<<"${API_BODY}")
  if [ -z "$n" ]; then
    api POST "/api/v2/projects/${shop}/releases" '{"description":"make run demo: the first release of shop","environment":"dev"}'
    api_expect 202 "creating release #1 of project shop"
    n=$(jq -r '.release.number' <<<"${API_BODY}")
    dep=$(jq -r '.deployment.id' <<<"${API_BODY}")
  else
    api GET "/api/v2/projects/${shop}/releases/${n}"
    dep=$(jq -r 'first(.environments[]? | select(.environment == "dev") | .deploymentId) // empty' <<<"${API_BODY}")
  fi
  status=$([ -z "$dep" ] || await_deployment "$shop" "$dep")
  if [ "$status" != deployed ]; then
    warn "release #${n} of project shop is '${status:-not finished after ${SHOP_RELEASE_TIMEOUT} s}' on demo-direct (GET /api/v2/projects/${shop}/deployments/${dep}); the Drift tab stays empty"
    return 0
  fi
  info "release #${n} of shop is deployed on demo-direct (namespace ${SHOP_NAMESPACE}) ($(elapsed))"

  # Drift: someone scales web by hand (as the cluster's admin), and a check finds it; skipped once
  # demo-direct has a finding, open or resolved (a check at connect, before the release, finds none).
  api GET "/api/v2/clusters/${direct}/drift"
  api_expect 200 "reading the drift of demo-direct"
  if [ "$(jq '.items | length' <<<"${API_BODY}")" != 0 ]; then
    info "demo-direct has drift findings already; newest check: $(jq -r '.latestCheck.summary // "none"' <<<"${API_BODY}")"
    return 0
  fi
  kubectl --kubeconfig "${KUBE_DIR}/admin.kubeconfig" -n "${SHOP_NAMESPACE}" scale deployment web --replicas=3 >/dev/null ||
    { warn "could not scale ${SHOP_NAMESPACE}/web for the drift demo"; return 0; }
  api POST "/api/v2/clusters/${direct}/drift/checks"
  api_expect 202 "checking demo-direct for drift"
  check=$(jq -r '.id' <<<"${API_BODY}")
  local deadline=$(( SECONDS + 120 ))
  while [ "$SECONDS" -lt "$deadline" ]; do
    api GET "/api/v2/clusters/${direct}/drift/checks/${check}"
    status=$(jq -r '.status // empty' <<<"${API_BODY}")
    case "$status" in
      completed) info "drift check of demo-direct: $(jq -r '.summary' <<<"${API_BODY}") ($(elapsed))"; return 0 ;;
      failed) warn "the drift check of demo-direct failed: $(jq -r '.error // .summary' <<<"${API_BODY}")"; return 0 ;;
    esac
    sleep 1
  done
  warn "the drift check of demo-direct did not finish within 120 s"
}
