#!/usr/bin/env bash
# A real Kubernetes control plane on loopback, for the demo cluster of
# `make run` and the agent's end-to-end tests:
#
#   etcd (Debian's etcd-server)  ->  kube-apiserver (RBAC on, server-side apply)
#                                    kube-controller-manager, kube-scheduler
#                                    kwok (simulated nodes: Pods run, logs stream)
#
#   tools/dev/kube.sh start DIR [--with-flux]
#                                  start it (idempotent), print one line
#                                  "kube ready <https-url> kubeconfig=<DIR>/admin.kubeconfig";
#                                  with --with-flux, flux-start too
#   tools/dev/kube.sh flux-start DIR
#                                  Flux's source-controller and kustomize-controller beside
#                                  the running control plane (below); idempotent; prints
#                                  "flux ready storage=<http-url>"
#   tools/dev/kube.sh flux-stop DIR
#                                  stop only the Flux controllers
#   tools/dev/kube.sh argocd-start DIR
#                                  Argo CD's repo-server and application-controller with a
#                                  redis beside the running control plane (below); idempotent;
#                                  prints "argocd ready namespace=argocd repo-server=<host:port>"
#   tools/dev/kube.sh argocd-stop DIR
#                                  stop only Argo CD and its redis
#   tools/dev/kube.sh seed DIR [HUB_URL]
#                                  the demo workloads (namespaces demo and payments:
#                                  Deployments, Services, an Ingress, ConfigMaps, a
#                                  Secret, a Job, a CronJob) and the empty namespaces
#                                  demo-dev, demo-staging (Flux) and shop-dev (direct delivery
#                                  of make run's demo-direct) (tools/dev/demo-cluster); no
#                                  adapter status is written by a script
#   tools/dev/kube.sh stop DIR     stop every process it started from DIR (Flux's, Argo CD's too)
#   tools/dev/kube.sh status DIR   say what runs
#
# Everything lives in DIR: the PKI (a self-made CA, the API server's serving
# certificate, the service-account key pair, kwok's kubelet certificate), the
# static token file, etcd's data, one log per process, pid files, and the admin
# kubeconfig, which `kubectl` uses as it is. All ports are free loopback ports
# chosen at start. The binaries are built from their Go modules by
# `tools/build-tools.sh kube` (cached like opa and temporal); etcd is installed
# with apt when it is missing.
#
# Container logs: kwok serves DIR/pod-logs/<namespace>.log (CRI format) for every
# container in the namespaces demo, payments and shop-dev, and pod-logs.sh keeps appending
# to them, so `kubectl logs -f` streams through the real API server.
#
# The simulated node renews a Lease (every 10 s of its 40 s) and the node
# lifecycle controller waits 2 minutes before calling it NotReady: without
# them the node flapped NotReady every ~55 s on a busy machine, and the
# controller marked every Pod unready, so Deployments showed 0/N ready in tests.
#
# Flux (tools/build-tools.sh flux builds the controllers, v1.9.6, and keeps their 7 CRDs
# beside them; flux-start builds them when missing, ~10 minutes on 2 cores the first
# time): the CRDs are applied, namespace flux-system made, and both controllers run
# as local processes with the admin kubeconfig, RUNTIME_NAMESPACE=flux-system,
# watching every namespace, no leader election, their metrics and health endpoints
# (and source-controller's artifact server, storage in DIR/flux/storage) on loopback
# ports below 32768: a port the kernel hands out as ephemeral can be taken by one of
# the controllers' own outgoing connections before it binds it. Logs:
# DIR/logs/source-controller.log, DIR/logs/kustomize-controller.log.
#
# Argo CD v3.6.1 (tools/build-tools.sh argocd builds its one multi-call binary and keeps
# its 3 CRDs beside it; argocd-start builds it when missing): the CRDs are applied,
# namespace argocd made with the ConfigMaps argocd-cm (resync an hour: only a refresh
# request picks up a commit quickly), argocd-rbac-cm, argocd-cmd-params-cm and the Secret
# argocd-secret (a random server.secretkey, made once, DIR/argocd/server.secretkey, mode
# 600) and the default AppProject. Debian's redis-server (installed with apt when missing, as etcd is) runs on a
# loopback port with a password from its config file (DIR/argocd/redis.conf, mode 600), no
# persistence, at most 64 MiB; the repo-server and the application-controller run as
# local processes of the one binary (ARGOCD_BINARY_NAME picks the role) with the admin
# kubeconfig and the redis password in their environment, never on a command line; the
# controller with ARGOCD_FAKE_IN_CLUSTER=true (Argo CD's own switch for running outside a
# cluster), so its in-cluster destination https://kubernetes.default.svc is the
# kubeconfig's API server, as it is for an in-cluster Argo CD. Ports
# are below 32768 as for Flux; the controller's metrics server listens on every interface
# (Argo CD has no flag for its address). Logs: DIR/logs/argocd-*.log.
#
# Env knobs: GITOPSHQ_KUBE_READY_TIMEOUT (seconds, default 60).
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

readonly PROCS=(etcd kube-apiserver kube-controller-manager kube-scheduler kwok pod-logs)
readonly DEMO_DIR="${TOOLS_DIR}/dev/demo-cluster"
# The namespaces whose Pods get the growing demo logs (pod-logs.sh writes one
# file per namespace; kwok serves it for every container there).
readonly LOG_NAMESPACES=(demo payments shop-dev)
readonly NODE_NAME=kwok-node-0
readonly FLUX_PROCS=(source-controller kustomize-controller)
readonly FLUX_NAMESPACE=flux-system
readonly ARGOCD_PROCS=(argocd-redis argocd-repo-server argocd-application-controller)
readonly ARGOCD_NAMESPACE=argocd
# Argo CD's periodic refresh (argocd-cm timeout.reconciliation, the controller's
# --app-resync): long, so that only a refresh request explains a quick pickup.
readonly ARGOCD_RESYNC_SECONDS=3600

usage() { die "usage: tools/dev/kube.sh start DIR [--with-flux] | stop|status|flux-start|flux-stop|argocd-start|argocd-stop DIR | seed DIR [HUB_URL]"; }

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

# N distinct free loopback ports in 20000-32767, out of the kernel's ephemeral range
# (32768-60999 by default), one a line.
free_low_ports() {
  python3 - "$1" <<'PY'
import random, socket, sys
ports = []
while len(ports) < int(sys.argv[1]):
    p = random.randint(20000, 32767)
    if p in ports:
        continue
    s = socket.socket()
    try:
        s.bind(("127.0.0.1", p))
    except OSError:
        continue
    finally:
        s.close()
    ports.append(p)
print("\n".join(map(str, ports)))
PY
}

running() { # name dir
  local pid
  pid=$(cat "$2/run/$1.pid" 2>/dev/null) || return 1
  kill -0 "$pid" 2>/dev/null
}

ensure_etcd() {
  command -v etcd >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "etcd is missing; install it with: sudo apt-get install etcd-server"
  log "installing etcd (Debian's etcd-server)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q etcd-server >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q etcd-server >/dev/null; } ||
    die "could not install etcd-server with apt-get"
}

ensure_redis() {
  command -v redis-server >/dev/null 2>&1 && return 0
  [ "$(id -u)" = 0 ] || die "redis-server is missing (Argo CD needs it); install it with: sudo apt-get install redis-server"
  log "installing redis (Debian's redis-server)"
  DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null 2>&1 ||
    { apt-get update -q >/dev/null 2>&1 && DEBIAN_FRONTEND=noninteractive apt-get install -y -q redis-server >/dev/null; } ||
    die "could not install redis-server with apt-get"
}

# The PKI and credentials, made once per DIR.
make_pki() {
  local d=$1/pki
  [ -f "$d/done" ] && return 0
  mkdir -p "$d"
  (
    cd "$d"
    openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt -days 3650 \
      -subj "/CN=gitopshq-dev-ca" 2>/dev/null
    issue() { # name cn sans
      openssl req -newkey rsa:2048 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$2" 2>/dev/null
      printf 'subjectAltName=%s\nextendedKeyUsage=serverAuth,clientAuth\n' "$3" >"$1.ext"
      openssl x509 -req -in "$1.csr" -CA ca.crt -CAkey ca.key -CAcreateserial -out "$1.crt" \
        -days 3650 -extfile "$1.ext" 2>/dev/null
      rm -f "$1.csr" "$1.ext"
    }
    issue apiserver kube-apiserver \
      "IP:127.0.0.1,IP:10.0.0.1,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc"
    issue kubelet "$NODE_NAME" "IP:127.0.0.1,DNS:localhost,DNS:$NODE_NAME"
    issue apiserver-kubelet-client kube-apiserver-kubelet-client "DNS:localhost"
    openssl genrsa -out sa.key 2048 2>/dev/null
    openssl rsa -in sa.key -pubout -out sa.pub 2>/dev/null
    # Static bearer tokens: the admin (system:masters) and one per control-plane
    # component, each with the identity its built-in RBAC role expects.
    tok() { od -An -tx1 -N24 /dev/urandom | tr -d ' \n'; }
    {
      echo "$(tok),admin,admin,system:masters"
      echo "$(tok),system:kube-controller-manager,system:kube-controller-manager"
      echo "$(tok),system:kube-scheduler,system:kube-scheduler"
      echo "$(tok),kwok,kwok,system:masters"
    } >tokens.csv
    chmod 600 ./*.key tokens.csv
    touch ./done
  )
}

token_of() { awk -F, -v u="$2" '$2 == u { print $1 }' "$1/pki/tokens.csv"; }

write_kubeconfig() { # dir user file url
  local dir=$1 user=$2 file=$3 url=$4
  cat >"$file" <<EOF
apiVersion: v1
kind: Config
clusters:
- name: gitopshq-dev
  cluster:
    server: ${url}
    certificate-authority: ${dir}/pki/ca.crt
users:
- name: ${user}
  user:
    token: $(token_of "$dir" "$user")
contexts:
- name: gitopshq-dev
  context: {cluster: gitopshq-dev, user: ${user}}
current-context: gitopshq-dev
EOF
  chmod 600 "$file"
}

launch() { # dir name cmd...
  local dir=$1 name=$2; shift 2
  setsid "$@" >"$dir/logs/$name.log" 2>&1 </dev/null &
  echo $! >"$dir/run/$name.pid"
}

wait_until() { # seconds cmd...
  local deadline=$(( $(date +%s) + $1 )); shift
  until "$@" >/dev/null 2>&1; do
    [ "$(date +%s)" -lt "$deadline" ] || return 1
    sleep 0.3
  done
}

start() {
  local dir=$1 timeout=${GITOPSHQ_KUBE_READY_TIMEOUT:-60} url name
  mkdir -p "$dir"/{run,logs,etcd}
  dir=$(cd "$dir" && pwd)
  if running kube-apiserver "$dir"; then
    url=$(cat "$dir/run/url")
    echo "kube ready ${url} kubeconfig=${dir}/admin.kubeconfig"
    return 0
  fi
  stop "$dir" >/dev/null
  ensure_etcd
  local t
  for t in kube-apiserver kube-controller-manager kube-scheduler kwok; do
    [ -x "$("${TOOLS_DIR}/bin-path.sh" --no-check "$t")" ] || "${TOOLS_DIR}/build-tools.sh" kube
  done
  bin() { "${TOOLS_DIR}/bin-path.sh" "$1"; }
  make_pki "$dir"

  local etcd_port etcd_peer api_port cm_port sched_port kwok_port
  etcd_port=$(free_port); etcd_peer=$(free_port); api_port=$(free_port)
  cm_port=$(free_port); sched_port=$(free_port); kwok_port=$(free_port)
  url="https://127.0.0.1:${api_port}"
  echo "$url" >"$dir/run/url"
  write_kubeconfig "$dir" admin "$dir/admin.kubeconfig" "$url"
  write_kubeconfig "$dir" system:kube-controller-manager "$dir/run/controller-manager.kubeconfig" "$url"
  write_kubeconfig "$dir" system:kube-scheduler "$dir/run/scheduler.kubeconfig" "$url"
  write_kubeconfig "$dir" kwok "$dir/run/kwok.kubeconfig" "$url"

  launch "$dir" etcd etcd --name gitopshq-dev --data-dir "$dir/etcd" \
    --listen-client-urls "http://127.0.0.1:${etcd_port}" --advertise-client-urls "http://127.0.0.1:${etcd_port}" \
    --listen-peer-urls "http://127.0.0.1:${etcd_peer}" --initial-advertise-peer-urls "http://127.0.0.1:${etcd_peer}" \
    --initial-cluster "gitopshq-dev=http://127.0.0.1:${etcd_peer}" --quota-backend-bytes 1073741824 \
    --log-level warn

  local p=$dir/pki
  # --endpoint-reconciler-type=none: otherwise it complains every 10 s that
  # 127.0.0.1 is a loopback endpoint for the kubernetes Service.
  launch "$dir" kube-apiserver "$(bin kube-apiserver)" \
    --etcd-servers "http://127.0.0.1:${etcd_port}" \
    --bind-address 127.0.0.1 --advertise-address 127.0.0.1 --secure-port "$api_port" \
    --tls-cert-file "$p/apiserver.crt" --tls-private-key-file "$p/apiserver.key" \
    --client-ca-file "$p/ca.crt" --token-auth-file "$p/tokens.csv" \
    --authorization-mode RBAC --service-cluster-ip-range 10.0.0.0/24 \
    --service-account-issuer https://kubernetes.default.svc \
    --service-account-key-file "$p/sa.pub" --service-account-signing-key-file "$p/sa.key" \
    --kubelet-client-certificate "$p/apiserver-kubelet-client.crt" \
    --kubelet-client-key "$p/apiserver-kubelet-client.key" \
    --kubelet-preferred-address-types InternalIP \
    --endpoint-reconciler-type none --allow-privileged=true \
    --enable-priority-and-fairness=false --v 1

  if ! wait_until "$timeout" kubectl --kubeconfig "$dir/admin.kubeconfig" get --raw /readyz; then
    tail -n 20 "$dir/logs/kube-apiserver.log" >&2
    die "kube-apiserver was not ready within ${timeout}s (logs: $dir/logs)"
  fi

  launch "$dir" kube-controller-manager "$(bin kube-controller-manager)" \
    --kubeconfig "$dir/run/controller-manager.kubeconfig" \
    --authentication-kubeconfig "$dir/run/controller-manager.kubeconfig" \
    --authentication-skip-lookup=true --leader-elect=false \
    --bind-address 127.0.0.1 --secure-port "$cm_port" \
    --service-account-private-key-file "$p/sa.key" --root-ca-file "$p/ca.crt" \
    --use-service-account-credentials=true --controllers '*,-nodeipam' \
    --node-monitor-grace-period 2m --v 1
  launch "$dir" kube-scheduler "$(bin kube-scheduler)" \
    --kubeconfig "$dir/run/scheduler.kubeconfig" \
    --authentication-kubeconfig "$dir/run/scheduler.kubeconfig" \
    --authentication-skip-lookup=true --leader-elect=false \
    --bind-address 127.0.0.1 --secure-port "$sched_port" --v 1
  # kwok's --node-port must equal the port of its --server-address: the API
  # server reaches the simulated kubelet (logs, exec) there.
  write_kwok_config "$dir"
  launch "$dir" pod-logs "${DEMO_DIR}/pod-logs.sh" "$dir/pod-logs"
  launch "$dir" kwok "$(bin kwok)" --kubeconfig "$dir/run/kwok.kubeconfig" \
    --manage-all-nodes=true --node-ip 127.0.0.1 --node-port "$kwok_port" \
    --server-address "127.0.0.1:${kwok_port}" \
    --tls-cert-file "$p/kubelet.crt" --tls-private-key-file "$p/kubelet.key" \
    --node-lease-duration-seconds 40 \
    --config "$dir/run/kwok.yaml"

  kubectl --kubeconfig "$dir/admin.kubeconfig" apply -f - >/dev/null <<EOF
apiVersion: v1
kind: Node
metadata:
  name: ${NODE_NAME}
  annotations:
    kwok.x-k8s.io/node: fake
    node.alpha.kubernetes.io/ttl: "0"
  labels:
    kubernetes.io/hostname: ${NODE_NAME}
    kubernetes.io/os: linux
    kubernetes.io/arch: amd64
    node-role.kubernetes.io/agent: ""
    type: kwok
status:
  allocatable: {cpu: "32", memory: 256Gi, pods: "110"}
  capacity: {cpu: "32", memory: 256Gi, pods: "110"}
EOF
  for name in "${PROCS[@]}"; do
    running "$name" "$dir" || { tail -n 20 "$dir/logs/$name.log" >&2; die "$name exited (logs: $dir/logs/$name.log)"; }
  done
  echo "kube ready ${url} kubeconfig=${dir}/admin.kubeconfig"
}

# kwok's ClusterLogs: every container of a Pod in a LOG_NAMESPACES namespace
# reads that namespace's file, and follows it.
write_kwok_config() {
  local dir=$1 ns first=1
  mkdir -p "$dir/pod-logs"
  {
    for ns in "${LOG_NAMESPACES[@]}"; do
      [ "$first" = 1 ] || echo "---"
      first=0
      : >>"$dir/pod-logs/$ns.log"
      cat <<EOF
kind: ClusterLogs
apiVersion: kwok.x-k8s.io/v1alpha1
metadata:
  name: ${ns}-logs
spec:
  selector:
    matchNamespaces: [${ns}]
  logs:
    - logsFile: ${dir}/pod-logs/${ns}.log
      follow: true
EOF
    done
  } >"$dir/run/kwok.yaml"
}

# The demo workloads and namespaces; idempotent (server-side apply). Nothing here writes an
# adapter's status: Flux delivers project demo (the hub wires it), the agent delivers project shop.
seed() {
  local dir=$1 kc f
  kc=(kubectl --kubeconfig "$dir/admin.kubeconfig")
  running kube-apiserver "$dir" || die "the control plane in $dir is not running (tools/dev/kube.sh start $dir)"
  for f in "${DEMO_DIR}"/[1-9]*.yaml; do
    "${kc[@]}" apply --server-side --field-manager gitopshq-demo -f "$f" >/dev/null
  done
  echo "kube seeded: namespaces demo, payments, demo-dev, demo-staging, shop-dev"
}

# Flux's controllers beside the control plane of DIR (see the header).
flux_start() {
  local dir=$1 timeout=${GITOPSHQ_KUBE_READY_TIMEOUT:-60} name t crds kc ports
  running kube-apiserver "$dir" || die "the control plane in $dir is not running (tools/dev/kube.sh start $dir)"
  if running source-controller "$dir" && running kustomize-controller "$dir"; then
    echo "flux ready storage=$(cat "$dir/run/flux-storage-url")"
    return 0
  fi
  flux_stop "$dir" >/dev/null
  for t in "${FLUX_PROCS[@]}"; do
    [ -x "$("${TOOLS_DIR}/bin-path.sh" --no-check "$t")" ] || "${TOOLS_DIR}/build-tools.sh" flux
  done
  kc=(kubectl --kubeconfig "$dir/admin.kubeconfig")
  for t in "${FLUX_PROCS[@]}"; do
    crds="$(dirname "$("${TOOLS_DIR}/bin-path.sh" "$t")")/crds"
    [ -d "$crds" ] || die "$crds is missing; delete $(dirname "$crds") and run tools/build-tools.sh flux"
    "${kc[@]}" apply --server-side --field-manager gitopshq-flux -f "$crds" >/dev/null
  done
  "${kc[@]}" wait --for condition=established --timeout 30s \
    crd/gitrepositories.source.toolkit.fluxcd.io crd/kustomizations.kustomize.toolkit.fluxcd.io >/dev/null
  "${kc[@]}" create namespace "$FLUX_NAMESPACE" --dry-run=client -o yaml |
    "${kc[@]}" apply --server-side --field-manager gitopshq-flux -f - >/dev/null

  # storage, source metrics, source health, kustomize metrics, kustomize health
  mapfile -t ports < <(free_low_ports 5)
  [ "${#ports[@]}" = 5 ] || die "could not find 5 free loopback ports in 20000-32767"
  mkdir -p "$dir/flux/storage"
  echo "http://127.0.0.1:${ports[0]}" >"$dir/run/flux-storage-url"
  printf '%s\n' "${ports[2]}" >"$dir/run/source-controller.health-port"
  printf '%s\n' "${ports[4]}" >"$dir/run/kustomize-controller.health-port"
  local common=(--watch-all-namespaces=true --enable-leader-election=false --log-level=info)
  launch "$dir" source-controller env KUBECONFIG="$dir/admin.kubeconfig" RUNTIME_NAMESPACE="$FLUX_NAMESPACE" \
    "$("${TOOLS_DIR}/bin-path.sh" source-controller)" "${common[@]}" \
    --storage-path="$dir/flux/storage" \
    --storage-addr="127.0.0.1:${ports[0]}" --storage-adv-addr="127.0.0.1:${ports[0]}" \
    --metrics-addr="127.0.0.1:${ports[1]}" --health-addr="127.0.0.1:${ports[2]}"
  launch "$dir" kustomize-controller env KUBECONFIG="$dir/admin.kubeconfig" RUNTIME_NAMESPACE="$FLUX_NAMESPACE" \
    "$("${TOOLS_DIR}/bin-path.sh" kustomize-controller)" "${common[@]}" \
    --metrics-addr="127.0.0.1:${ports[3]}" --health-addr="127.0.0.1:${ports[4]}"

  local deadline=$(( $(date +%s) + timeout ))
  for name in "${FLUX_PROCS[@]}"; do
    # controller-runtime's /readyz on the health address.
    until curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$(cat "$dir/run/$name.health-port")/readyz" 2>/dev/null; do
      running "$name" "$dir" || { tail -n 20 "$dir/logs/$name.log" >&2; die "$name exited (log: $dir/logs/$name.log)"; }
      [ "$(date +%s)" -lt "$deadline" ] ||
        { tail -n 20 "$dir/logs/$name.log" >&2; die "$name was not ready within ${timeout}s (log: $dir/logs/$name.log)"; }
      sleep 0.3
    done
  done
  echo "flux ready storage=$(cat "$dir/run/flux-storage-url")"
}

flux_stop() {
  local dir=$1 name
  for name in kustomize-controller source-controller; do stop_proc "$dir" "$name"; done
}

# Argo CD beside the control plane of DIR (see the header).
argocd_start() {
  local dir=$1 timeout=${GITOPSHQ_KUBE_READY_TIMEOUT:-60} bin crds kc ports name port a=$1/argocd
  running kube-apiserver "$dir" || die "the control plane in $dir is not running (tools/dev/kube.sh start $dir)"
  if running argocd-repo-server "$dir" && running argocd-application-controller "$dir" && running argocd-redis "$dir"; then
    echo "argocd ready namespace=${ARGOCD_NAMESPACE} repo-server=$(cat "$dir/run/argocd-repo-server.addr")"
    return 0
  fi
  argocd_stop "$dir" >/dev/null
  ensure_redis
  bin=$("${TOOLS_DIR}/bin-path.sh" --no-check argocd)
  [ -x "$bin" ] || "${TOOLS_DIR}/build-tools.sh" argocd
  crds="$(dirname "$bin")/crds"
  if [ ! -d "$crds" ] || [ ! -x "$(dirname "$bin")/git-verify-wrapper.sh" ]; then
    die "$crds or git-verify-wrapper.sh is missing; delete $(dirname "$crds") and run tools/build-tools.sh argocd"
  fi
  kc=(kubectl --kubeconfig "$dir/admin.kubeconfig")
  "${kc[@]}" apply --server-side --field-manager gitopshq-argocd -f "$crds" >/dev/null
  # Right after the apply a CRD may have no conditions yet, which `kubectl wait` takes for an error.
  wait_until 30 "${kc[@]}" wait --for condition=established --timeout 5s \
    crd/applications.argoproj.io crd/appprojects.argoproj.io ||
    die "Argo CD's CRDs were not established within 30s"
  mkdir -p "$a"/{tmp,tls,ssh,gpg}
  : >"$a/ssh/ssh_known_hosts"
  (umask 077
   [ -s "$a/server.secretkey" ] || od -An -tx1 -N32 /dev/urandom | tr -d ' \n' >"$a/server.secretkey"
   [ -s "$a/redis.password" ] || od -An -tx1 -N24 /dev/urandom | tr -d ' \n' >"$a/redis.password")
  # Argo CD reads its settings only from objects labelled part-of=argocd.
  "${kc[@]}" apply --server-side --field-manager gitopshq-argocd -f - >/dev/null <<YAML
apiVersion: v1
kind: Namespace
metadata: {name: ${ARGOCD_NAMESPACE}}
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cm
  namespace: ${ARGOCD_NAMESPACE}
  labels: {app.kubernetes.io/name: argocd-cm, app.kubernetes.io/part-of: argocd}
data:
  timeout.reconciliation: ${ARGOCD_RESYNC_SECONDS}s
  timeout.reconciliation.jitter: 0s
  application.resourceTrackingMethod: annotation
  admin.enabled: "false"
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-rbac-cm
  namespace: ${ARGOCD_NAMESPACE}
  labels: {app.kubernetes.io/name: argocd-rbac-cm, app.kubernetes.io/part-of: argocd}
data:
  policy.default: ""
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: argocd-cmd-params-cm
  namespace: ${ARGOCD_NAMESPACE}
  labels: {app.kubernetes.io/name: argocd-cmd-params-cm, app.kubernetes.io/part-of: argocd}
data:
  controller.repo.server.plaintext: "true"
  reposerver.disable.tls: "true"
---
# What argocd-server makes when it starts (it does not run here): the project Applications
# name when they name none of their own.
apiVersion: argoproj.io/v1alpha1
kind: AppProject
metadata: {name: default, namespace: ${ARGOCD_NAMESPACE}}
spec:
  sourceRepos: ["*"]
  destinations: [{server: "*", namespace: "*"}]
  clusterResourceWhitelist: [{group: "*", kind: "*"}]
YAML
  # The key travels through a pipe, never a command line.
  "${kc[@]}" -n "$ARGOCD_NAMESPACE" create secret generic argocd-secret \
      --from-file=server.secretkey="$a/server.secretkey" --dry-run=client -o yaml |
    "${kc[@]}" label --local -f - -o yaml app.kubernetes.io/name=argocd-secret app.kubernetes.io/part-of=argocd |
    "${kc[@]}" apply --server-side --field-manager gitopshq-argocd -f - >/dev/null

  # redis, repo-server gRPC, repo-server metrics, controller metrics
  mapfile -t ports < <(free_low_ports 4)
  [ "${#ports[@]}" = 4 ] || die "could not find 4 free loopback ports in 20000-32767"
  (umask 077 && cat >"$a/redis.conf" <<CONF
bind 127.0.0.1
port ${ports[0]}
protected-mode yes
daemonize no
save ""
appendonly no
dir $a
maxmemory 64mb
maxmemory-policy allkeys-lru
requirepass $(cat "$a/redis.password")
CONF
  )
  printf '127.0.0.1:%s\n' "${ports[1]}" >"$dir/run/argocd-repo-server.addr"
  printf '%s\n' "${ports[2]}" >"$dir/run/argocd-repo-server.health-port"
  printf '%s\n' "${ports[3]}" >"$dir/run/argocd-application-controller.health-port"
  launch "$dir" argocd-redis redis-server "$a/redis.conf"
  (
    export REDIS_PASSWORD
    REDIS_PASSWORD=$(cat "$a/redis.password")
    # git asks the binary for credentials under the name argocd (GIT_ASKPASS=argocd) and the
    # repo-server runs git-verify-wrapper.sh: both on its PATH.
    launch "$dir" argocd-repo-server env ARGOCD_BINARY_NAME=argocd-repo-server \
      PATH="$(dirname "$bin"):$PATH" TMPDIR="$a/tmp" ARGOCD_GPG_ENABLED=false ARGOCD_GNUPGHOME="$a/gpg" \
      ARGOCD_TLS_DATA_PATH="$a/tls" ARGOCD_SSH_DATA_PATH="$a/ssh" \
      "$bin" --address 127.0.0.1 --port "${ports[1]}" \
      --metrics-address 127.0.0.1 --metrics-port "${ports[2]}" \
      --redis "127.0.0.1:${ports[0]}" --disable-tls --client-ca-path= --parallelismlimit 2 --logformat text
    launch "$dir" argocd-application-controller env ARGOCD_BINARY_NAME=argocd-application-controller \
      KUBECONFIG="$dir/admin.kubeconfig" ARGOCD_FAKE_IN_CLUSTER=true TMPDIR="$a/tmp" \
      "$bin" --namespace "$ARGOCD_NAMESPACE" \
      --repo-server "127.0.0.1:${ports[1]}" --repo-server-plaintext \
      --redis "127.0.0.1:${ports[0]}" --metrics-port "${ports[3]}" \
      --app-resync "$ARGOCD_RESYNC_SECONDS" --app-resync-jitter 0 \
      --status-processors 4 --operation-processors 2 --logformat text
  )

  local deadline=$(( $(date +%s) + timeout ))
  until (exec 3<>"/dev/tcp/127.0.0.1/${ports[0]}") 2>/dev/null; do
    running argocd-redis "$dir" || { tail -n 20 "$dir/logs/argocd-redis.log" >&2; die "redis exited (log: $dir/logs/argocd-redis.log)"; }
    [ "$(date +%s)" -lt "$deadline" ] || die "redis was not ready within ${timeout}s (log: $dir/logs/argocd-redis.log)"
    sleep 0.2
  done
  for name in argocd-repo-server argocd-application-controller; do
    port=$(cat "$dir/run/$name.health-port")
    until curl -fsS -m 2 -o /dev/null "http://127.0.0.1:${port}/healthz" 2>/dev/null; do
      running "$name" "$dir" || { tail -n 20 "$dir/logs/$name.log" >&2; die "$name exited (log: $dir/logs/$name.log)"; }
      [ "$(date +%s)" -lt "$deadline" ] ||
        { tail -n 20 "$dir/logs/$name.log" >&2; die "$name was not ready within ${timeout}s (log: $dir/logs/$name.log)"; }
      sleep 0.3
    done
  done
  echo "argocd ready namespace=${ARGOCD_NAMESPACE} repo-server=$(cat "$dir/run/argocd-repo-server.addr")"
}

argocd_stop() {
  local dir=$1 name
  for name in argocd-application-controller argocd-repo-server argocd-redis; do stop_proc "$dir" "$name"; done
}

stop_proc() { # dir name
  local dir=$1 name=$2 pid
  pid=$(cat "$dir/run/$name.pid" 2>/dev/null) || return 0
  kill "$pid" 2>/dev/null || true
  for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
  kill -9 "$pid" 2>/dev/null || true
  rm -f "$dir/run/$name.pid"
  echo "stopped $name"
}

stop() {
  local dir=$1 name
  argocd_stop "$dir"
  flux_stop "$dir"
  for name in pod-logs kwok kube-scheduler kube-controller-manager kube-apiserver etcd; do
    stop_proc "$dir" "$name"
  done
}

status() {
  local dir=$1 name
  for name in "${PROCS[@]}" "${FLUX_PROCS[@]}" "${ARGOCD_PROCS[@]}"; do
    if running "$name" "$dir"; then echo "$name: running (pid $(cat "$dir/run/$name.pid"))"; else echo "$name: stopped"; fi
  done
}

[ $# -ge 2 ] || usage
case "$1" in
  start) case "${3:-}" in
           "") [ $# -eq 2 ] || usage; start "$2" ;;
           --with-flux) [ $# -eq 3 ] || usage; start "$2"; flux_start "$(cd "$2" && pwd)" ;;
           *) usage ;;
         esac ;;
  flux-start) flux_start "$(cd "$2" && pwd)" ;;
  flux-stop) [ -d "$2" ] && flux_stop "$2" ;;
  argocd-start) argocd_start "$(cd "$2" && pwd)" ;;
  argocd-stop) [ -d "$2" ] && argocd_stop "$2" ;;
  seed) seed "$(cd "$2" && pwd)" "${3:-}" ;;
  stop) [ -d "$2" ] && stop "$2" ;;
  status) status "$2" ;;
  *) usage ;;
esac
