#!/usr/bin/env bash
# Starts the machine's PostgreSQL 15 (as the postgres user) when it is not
# running, and makes sure the role and databases GitOpsHQ uses exist.
# Idempotent: a second call only checks.
#
#   tools/dev/postgres.sh [database ...]     (default: gitopshq gitopshq_test)
set -euo pipefail

PG_VERSION=15
PG_CLUSTER=main
PG_PORT="${GITOPSHQ_PG_PORT:-5432}"
PG_USER="${GITOPSHQ_PG_USER:-gitopshq}"
PG_PASSWORD="${GITOPSHQ_PG_PASSWORD:-gitopshq}"
PG_MAX_CONNECTIONS="${GITOPSHQ_PG_MAX_CONNECTIONS:-300}"
databases=("$@")
[ ${#databases[@]} -gt 0 ] || databases=(gitopshq gitopshq_test)

die() { echo "postgres: $*" >&2; exit 1; }

command -v pg_lsclusters >/dev/null 2>&1 || die "PostgreSQL ${PG_VERSION} is not installed; install it with: apt-get install -y postgresql-${PG_VERSION}"
id postgres >/dev/null 2>&1 || die "there is no 'postgres' system user; reinstall postgresql-${PG_VERSION}"

as_postgres() {
  if [ "$(id -un)" = postgres ]; then "$@"; else runuser -u postgres -- "$@"; fi
}

if ! pg_lsclusters -h | awk '{print $1" "$2}' | grep -qx "${PG_VERSION} ${PG_CLUSTER}"; then
  echo "postgres: creating cluster ${PG_VERSION}/${PG_CLUSTER}"
  pg_createcluster "${PG_VERSION}" "${PG_CLUSTER}" --port "${PG_PORT}" >/dev/null
fi

status=$(pg_lsclusters -h | awk -v v="${PG_VERSION}" -v c="${PG_CLUSTER}" '$1==v && $2==c {print $4}')
if [ "${status}" != "online" ]; then
  # Connections: the HA profile (three replicas' pools and the Temporal server's), a test run and
  # the benchmarks share this server; PostgreSQL's default of 100 ran out with them. Set only
  # while the server is down (it takes a restart), and never lowered.
  conf_max=$(pg_conftool -s "${PG_VERSION}" "${PG_CLUSTER}" show max_connections 2>/dev/null || echo 100)
  if [ "${conf_max:-100}" -lt "${PG_MAX_CONNECTIONS}" ]; then
    pg_conftool "${PG_VERSION}" "${PG_CLUSTER}" set max_connections "${PG_MAX_CONNECTIONS}"
    echo "postgres: max_connections ${conf_max} -> ${PG_MAX_CONNECTIONS}"
  fi
  echo "postgres: starting ${PG_VERSION}/${PG_CLUSTER} on port ${PG_PORT}"
  # pg_ctlcluster switches to the cluster owner (postgres) itself.
  pg_ctlcluster "${PG_VERSION}" "${PG_CLUSTER}" start || die "could not start PostgreSQL; see /var/log/postgresql/postgresql-${PG_VERSION}-${PG_CLUSTER}.log"
fi

for _ in $(seq 1 50); do
  as_postgres psql -p "${PG_PORT}" -qAtc 'select 1' >/dev/null 2>&1 && break
  sleep 0.2
done
as_postgres psql -p "${PG_PORT}" -qAtc 'select 1' >/dev/null || die "PostgreSQL did not accept connections on port ${PG_PORT}"

psql_admin() { as_postgres psql -p "${PG_PORT}" -v ON_ERROR_STOP=1 -qAt "$@"; }

if [ "$(psql_admin -c "select 1 from pg_roles where rolname = '${PG_USER}'")" != 1 ]; then
  psql_admin -c "create role ${PG_USER} login password '${PG_PASSWORD}'"
fi
for db in "${databases[@]}"; do
  if [ "$(psql_admin -c "select 1 from pg_database where datname = '${db}'")" != 1 ]; then
    psql_admin -c "create database ${db} owner ${PG_USER}"
    echo "postgres: created database ${db}"
  fi
done
