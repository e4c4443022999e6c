# shellcheck shell=bash
# make_local_tls <dir> <host>: a local CA (ca.crt, ca.key) and a server certificate for <host>
# and localhost (hub.crt, hub.key) in <dir>, made once (kept when all four exist). Used for the
# hub's agent gateway by `make run` (the demo agent verifies the hub against this CA, as an agent
# in a real cluster does with tls.caBundle / GITOPSHQ_HUB_CA_FILE) and by bench/run-fleet.sh;
# run-ha.sh makes a second set for the replicas' peer port (the certificate has no extended key
# usage, so it serves as the replicas' client certificate too).
# Needs common.sh (log, die).
make_local_tls() {
  local dir=$1 host=$2
  [ -s "${dir}/hub.crt" ] && [ -s "${dir}/hub.key" ] && [ -s "${dir}/ca.crt" ] && [ -s "${dir}/ca.key" ] && return 0
  command -v openssl >/dev/null 2>&1 || die "openssl is needed to make the local TLS certificates; install it with: apt-get install -y openssl"
  log "making a local CA and the hub's TLS certificate in ${dir}"
  mkdir -p "${dir}"
  (
    cd "${dir}"
    openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj "/CN=GitOpsHQ local CA" \
      -keyout ca.key -out ca.crt >/dev/null 2>&1
    openssl req -newkey rsa:2048 -nodes -subj "/CN=${host}" -keyout hub.key -out hub.csr >/dev/null 2>&1
    printf 'subjectAltName=IP:%s,DNS:localhost\n' "${host}" > san.ext
    openssl x509 -req -in hub.csr -CA ca.crt -CAkey ca.key -CAcreateserial -days 825 \
      -extfile san.ext -out hub.crt >/dev/null 2>&1
    chmod 600 ca.key hub.key
  ) || die "could not make the local TLS certificates in ${dir}"
}
