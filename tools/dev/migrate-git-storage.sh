#!/usr/bin/env bash
# Copies every project's hosted Git repository from the file storage (GITOPSHQ_GIT_ROOT) into the
# PostgreSQL storage (the hub's database), verifies each copy and prints one line per repository
# and a summary (docs/operations.md#moving-the-repositories-into-postgresql). Run it with every
# hub replica stopped. It is resumable: each repository's refs are written last, in one
# transaction, so a run that stops half-way leaves no half-written repository, and running it
# again skips what is up to date. A repository PostgreSQL holds otherwise is refused unless
# --replace is given.
#
#   tools/dev/migrate-git-storage.sh [--dry-run] [--replace] [--gitopshq.git.root=DIR ...]
#
# It runs the hub jar's `migrate-git-storage` mode, which reads the hub's own configuration:
#   GITOPSHQ_DB_URL, GITOPSHQ_DB_USER, GITOPSHQ_DB_PASSWORD   the hub's database (the target)
#   GITOPSHQ_GIT_ROOT                                         the file repositories (the source)
# and these:
#   GITOPSHQ_HUB_JAR        the hub jar (api/target/gitopshq-hub.jar)
#   GITOPSHQ_MIGRATE_HEAP   the JVM's -Xmx (512m); one repository's pack index is in memory at a
#                           time, ~100 bytes an object, so 512m suits repositories of millions
#                           of objects
# Exit status: 0 when every repository is in PostgreSQL (migrated now or before), 1 when one was
# refused or failed (its line says why), 2 for a bad argument.
set -euo pipefail
. "$(dirname "${BASH_SOURCE[0]}")/../lib/common.sh"

HUB_JAR=${GITOPSHQ_HUB_JAR:-${REPO_ROOT}/api/target/gitopshq-hub.jar}
HEAP=${GITOPSHQ_MIGRATE_HEAP:-512m}

[ -f "${HUB_JAR}" ] || die "no hub jar at ${HUB_JAR}: build it with 'make build' or set GITOPSHQ_HUB_JAR"
java_home=$("${TOOLS_DIR}/lib/java.sh") || exit 1

exec "${java_home}/bin/java" -Xms64m -Xmx"${HEAP}" -jar "${HUB_JAR}" migrate-git-storage "$@"
