#!/usr/bin/env bash
# Starts the dev stack over from nothing (`make reset`): removes the state
# `make run` keeps in .gitopshq/ (Temporal's SQLite file, the hub's data dir and
# bootstrap token, logs, the demo cluster and the demo agents' identities) and drops and
# recreates the hub's database (`gitopshq`, or $GITOPSHQ_DEV_DB). The test
# database (gitopshq_test), the build output and the tool cache are left alone.
#
# Needed when the hub's owner token is lost: the hub writes
# .gitopshq/data/bootstrap-token only when it creates the owner, so a database
# that outlived its .gitopshq/ cannot be logged into without this.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

DB="${GITOPSHQ_DEV_DB:-gitopshq}"
PG_PORT="${GITOPSHQ_PG_PORT:-5432}"

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

# Wiping state under a running stack would leave it half broken.
for port in 8080 50051 7233; do
  if [ -n "$(ss -Hltn "sport = :${port}" 2>/dev/null)" ]; then
    die "port ${port} is in use: stop 'make run' (Ctrl-C) before 'make reset'"
  fi
done

log "removing dev-stack state in .gitopshq/ (keeping build.stamp)"
# The demo cluster goes too: what the old database delivered and synced there (direct deploys,
# credentials labelled with the old ids) would otherwise stand in the way of the new seed.
[ ! -d "${STATE_DIR}/kube" ] || "${TOOLS_DIR}/dev/kube.sh" stop "${STATE_DIR}/kube" >/dev/null
rm -rf "${STATE_DIR}/data" "${STATE_DIR}/logs" "${STATE_DIR}/demo-agent" "${STATE_DIR}/demo-direct-agent" \
  "${STATE_DIR}/kube" "${STATE_DIR}/demo-kubeconfig"

# postgres.sh starts PostgreSQL if needed; then drop and let it recreate.
"${TOOLS_DIR}/dev/postgres.sh" >/dev/null
log "dropping database ${DB}"
as_postgres psql -p "${PG_PORT}" -v ON_ERROR_STOP=1 -qAt \
  -c "drop database if exists ${DB} with (force)"
"${TOOLS_DIR}/dev/postgres.sh" "${DB}"
log "reset done; 'make run' starts from a fresh database"
